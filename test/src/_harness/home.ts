import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DaemonClient } from '@holdfast/adapter/daemon-client';
import { homeLayout, type HomeLayout } from '@holdfast/shared/paths';
import { DAEMON_NODE_FLAGS } from '@holdfast/shared/constants';

/** Repository root (test/dist/_harness → ../../..). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const DAEMON_MAIN = join(REPO_ROOT, 'daemon', 'dist', 'main.js');
export const CLI_MAIN = join(REPO_ROOT, 'adapter', 'dist', 'cli', 'main.js');

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns a truthy value or the deadline passes (never sleep to synchronise).
 * @throws Error naming `what` and the last value/error at the deadline.
 */
export async function pollUntil<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 25): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await delay(intervalMs);
  }
}

/** Pids of live (non-zombie) processes whose environment contains `needle` (e.g. `HOLDFAST_HOME=/tmp/x`). */
export function processesWithEnv(needle: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${p}/environ`, 'latin1').split('\0').includes(needle)) continue;
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      out.push({ pid: Number(p), cmd: readFileSync(`/proc/${p}/cmdline`, 'latin1').split('\0').join(' ').trim() });
    } catch {
      // gone
    }
  }
  return out;
}

/** Command lines of every live process (for "no `sleep 1000` left" checks). */
export function processTable(): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      out.push({ pid: Number(p), cmd: readFileSync(`/proc/${p}/cmdline`, 'latin1').split('\0').join(' ').trim() });
    } catch {
      // gone
    }
  }
  return out;
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end and collects its output (stdin gets `input`, then end-of-file).
 * @throws when it runs longer than `timeoutMs` (default 60 s; it is killed).
 */
export function runCommand(cmd: string, args: string[], opts: { env: Record<string, string>; cwd?: string; timeoutMs?: number; input?: string }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} timed out; stdout=${stdout} stderr=${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * A temporary HOLDFAST_HOME with one workspace folder, a config, and helpers to start/kill the
 * daemon, talk to it and run the CLI. `cleanup()` stops everything the home started and fails if
 * any process of it survives.
 */
export class TestHome {
  readonly home: string;
  readonly layout: HomeLayout;
  readonly workspace: string;
  daemon: ChildProcess | null = null;
  /** The tail of the stderr (its JSON log lines) of the daemon {@link startDaemon} started. */
  daemonStderr = '';
  private clients: DaemonClient[] = [];

  private readonly ownUserHome: string | null;

  /**
   * @param opts.homeParent folder the home is made in (default /tmp);
   * @param opts.userHomeParent make the processes' `HOME` a fresh folder there instead of
   *   `<home>/user` (sandbox tests need a HOME outside /tmp); removed by cleanup().
   */
  constructor(config: Record<string, unknown> = {}, opts: { homeParent?: string; userHomeParent?: string } = {}) {
    this.home = mkdtempSync(join(opts.homeParent ?? '/tmp', 'hf-'));
    this.layout = homeLayout(this.home);
    this.workspace = join(this.home, 'ws');
    mkdirSync(this.workspace, { recursive: true });
    mkdirSync(join(this.home, 'user'), { recursive: true, mode: 0o700 });
    this.ownUserHome = opts.userHomeParent ? mkdtempSync(join(opts.userHomeParent, 'hf-user-')) : null;
    // A test never opens the machine's browser for a desktop view (issue 16): panels are off unless a test asks.
    const cfg = { workspaces: [{ name: 'ws', path: this.workspace }], desktop: { panel: { mode: 'off' } }, ...config };
    writeFileSync(this.layout.config, toYaml(cfg), { mode: 0o600 });
  }

  /**
   * Environment for processes of this home: `HOLDFAST_HOME`, and an empty `HOME` of its own so
   * shells never load (or, when killed mid-start, break) the machine user's rc files — a killed
   * pyenv rehash leaves a lock that stalls every later bash for 60 s.
   */
  env(extra: Record<string, string> = {}, unset: readonly string[] = []): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !unset.includes(k)) env[k] = v;
    return { ...env, HOLDFAST_HOME: this.home, HOME: this.userHome, ...extra };
  }

  /** The `HOME` of this home's processes (empty folder). */
  get userHome(): string {
    return this.ownUserHome ?? join(this.home, 'user');
  }

  /** Environment marker every process of this home carries. */
  get envMarker(): string {
    return `HOLDFAST_HOME=${this.home}`;
  }

  /** Starts holdfastd as a child (without the variables in `unset`) and waits until it answers. */
  async startDaemon(extraEnv: Record<string, string> = {}, unset: readonly string[] = []): Promise<number> {
    const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, DAEMON_MAIN, 'run', '--home', this.home], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: this.env(extraEnv, unset),
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.length > 20000) err = err.slice(-10000);
      this.daemonStderr = err;
    });
    this.daemon = child;
    const c = this.client();
    const st = await pollUntil('daemon to answer', async () => {
      if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}: ${err.slice(-2000)}`);
      return c.call('daemon.status', {}, { deadlineMs: 1000 });
    }, 15_000);
    return st.pid;
  }

  /** The current daemon pid from its pid file. */
  daemonPid(): number | null {
    try {
      return (JSON.parse(readFileSync(this.layout.daemonPidFile, 'utf8')) as { pid: number }).pid;
    } catch {
      return null;
    }
  }

  /** `kill -9` the daemon (pid from the pid file, which also covers a restarted successor). */
  async kill9Daemon(): Promise<void> {
    const pid = this.daemonPid();
    if (pid === null) throw new Error('no daemon pid file');
    process.kill(pid, 'SIGKILL');
    await pollUntil('daemon to die', () => !isAlive(pid), 5000);
  }

  /** A control-socket client (role test) that does not auto-start the daemon. */
  client(giveUpMs = 15_000): DaemonClient {
    const c = new DaemonClient({ role: 'test', home: this.home, autoStart: false, giveUpMs });
    this.clients.push(c);
    return c;
  }

  /** Runs the `holdfast` CLI with this home. */
  cli(args: string[], opts: { timeoutMs?: number; input?: string } = {}): Promise<CliResult> {
    return runCommand(process.execPath, [CLI_MAIN, ...args], { env: this.env(), ...opts });
  }

  /**
   * A tmux server private to this home (its socket in the home, this home's environment):
   * resolves with the command's stdout, rejects on a non-zero exit. Kill it with `kill-server`.
   */
  tmux(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const p = spawn('tmux', ['-S', join(this.home, 'tmux.sock'), ...args], { env: this.env() });
      let out = '';
      p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`tmux ${args.join(' ')} exited ${code}`))));
    });
  }

  /** Live processes started by this home (daemon, guardians, shells, their children). */
  processes(): { pid: number; cmd: string }[] {
    return processesWithEnv(this.envMarker);
  }

  /**
   * Ends every session, stops the daemon, kills anything of this home that is left and removes
   * the folder. @throws when a process of this home had to be killed (a leak).
   */
  async cleanup(): Promise<void> {
    for (const c of this.clients) c.close();
    try {
      const c = new DaemonClient({ role: 'test', home: this.home, autoStart: false, giveUpMs: 500 });
      await c.call('session.kill', { all: true }, { deadlineMs: 30_000, retry: 'never' }).catch(() => undefined);
      await c.call('daemon.stop', { kill_sessions: true }, { deadlineMs: 30_000, retry: 'never' }).catch(() => undefined);
      c.close();
    } catch {
      // daemon already down
    }
    const daemonPid = this.daemonPid();
    await pollUntil('daemon to stop', () => daemonPid === null || !isAlive(daemonPid), 10_000).catch(() => undefined);
    const left = this.processes();
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(this.home, { recursive: true, force: true });
    if (this.ownUserHome) rmSync(this.ownUserHome, { recursive: true, force: true });
    if (this.layout.runDirRelocated) rmSync(this.layout.runDir, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`processes of ${this.home} were still alive after cleanup: ${left.map((p) => `${p.pid} ${p.cmd}`).join('; ')}`);
  }
}

/** Minimal YAML writer for test configs (objects, arrays, scalars). */
function toYaml(v: unknown, indent = ''): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]\n';
    return v.map((x) => `${indent}- ${toYaml(x, indent + '  ').trimStart()}`).join('');
  }
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return '{}\n';
    return entries
      .map(([k, x]) => {
        if (x && typeof x === 'object' && (!Array.isArray(x) || x.length > 0)) return `${indent}${k}:\n${toYaml(x, indent + '  ')}`;
        return `${indent}${k}: ${toYaml(x, indent).trim()}\n`;
      })
      .join('');
  }
  return `${JSON.stringify(v)}\n`;
}
