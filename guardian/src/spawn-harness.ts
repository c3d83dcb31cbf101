/**
 * Test harness (not a test file): starts REAL guardian processes from the bundle
 * (`guardian/dist/guardian.mjs`) in a short temp folder, exactly as the daemon does — detached,
 * stdio to `guardian.log`, no pipes, no IPC — and talks to them through their Unix socket with
 * `dialPeer`. Every process a guardian starts carries a per-guardian marker in its environment,
 * so `leftovers()` finds anything still alive from the process table, and `cleanup()` kills
 * what a failed test left behind.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  G,
  ProtocolVersions,
  type CommandRecord,
  type ExecResult,
  type GuardianManifest,
  type GuardianSpec,
  type ReadResult,
  type TaskRecord,
} from '@holdfast/shared/protocol';
import { dialPeer, type RpcPeer } from '@holdfast/shared/wire';

export const BUNDLE = fileURLToPath(new URL('./guardian.mjs', import.meta.url));

/** Polls `fn` until it returns a truthy value or `ms` passes (then throws `what`). */
export async function until<T>(what: string, ms: number, fn: () => T | Promise<T>, everyMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Pids of live (non-zombie) processes whose environment holds `marker`. */
export function processesWithMarker(marker: string): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const env = readFileSync(`/proc/${n}/environ`, 'latin1');
      if (!env.split('\0').includes(marker)) continue;
      const stat = readFileSync(`/proc/${n}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state === 'Z' || state === 'X') continue;
      out.push({ pid: Number(n), cmd: readFileSync(`/proc/${n}/cmdline`, 'latin1').split('\0').join(' ').trim() });
    } catch {
      // gone, or not readable
    }
  }
  return out;
}

/** True when a live process has exactly this command line. */
export function processWithCmdline(cmd: string): number[] {
  const found: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      if (readFileSync(`/proc/${n}/cmdline`, 'latin1').split('\0').join(' ').trim() !== cmd) continue;
      const stat = readFileSync(`/proc/${n}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(n));
    } catch {
      // gone
    }
  }
  return found;
}

export interface StartedGuardian {
  dir: string;
  spec: GuardianSpec;
  specPath: string;
  pid: number;
  /** `HFG_TEST_MARK=<random>`: in the environment of the guardian and everything it starts. */
  marker: string;
  manifest: GuardianManifest;
  /** Dials the guardian (role test unless told). */
  dial(opts?: { proto?: number; role?: 'test' | 'daemon' | 'cli' | 'adapter' }): Promise<RpcPeer>;
  /** The guardian's own log. */
  logText(): string;
  /** Live processes started for this guardian (guardian included). */
  leftovers(): Array<{ pid: number; cmd: string }>;
  /** Waits for the guardian process to be gone. */
  waitGone(ms?: number): Promise<void>;
  /** Kills everything left (SIGKILL) and removes the temp folder. Safe to call twice. */
  cleanup(): Promise<void>;
}

/** Starts a guardian from the bundle with a spec in a fresh `/tmp/hfg-*` folder. */
export async function startGuardian(over: Partial<GuardianSpec> = {}, opts: { env?: NodeJS.ProcessEnv; closedStdio?: boolean } = {}): Promise<StartedGuardian> {
  const dir = mkdtempSync('/tmp/hfg-');
  // A fresh, empty HOME unless the test brings its own: the shell's rc files are then the
  // test's business, and a real ~/.bashrc (slow, or holding locks such as pyenv's rehash lock)
  // cannot make a test slow or flaky.
  const home = join(dir, 'home');
  const marker = `HFG_TEST_MARK=${randomBytes(6).toString('hex')}`;
  const spec: GuardianSpec = {
    schema: 1,
    gid: `g${randomBytes(4).toString('hex')}`,
    cwd: dir,
    env: {},
    cols: 200,
    rows: 50,
    socketPath: join(dir, 'g.sock'),
    manifestPath: join(dir, 'run', 'g.json'),
    sessionDir: join(dir, 's'),
    orphanTimeoutS: 3600,
    daemonBuild: 'test',
    ...over,
  };
  spec.env = { HOME: home, ...spec.env };
  const specPath = join(dir, 'spec.json');
  writeFileSync(specPath, JSON.stringify(spec), { mode: 0o600 });
  const { openSync, closeSync, mkdirSync } = await import('node:fs');
  mkdirSync(spec.sessionDir, { recursive: true, mode: 0o700 });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const logFd = openSync(join(dir, 'guardian.log'), 'a', 0o600);
  const [k, v] = marker.split('=') as [string, string];
  const child = spawn(process.execPath, [BUNDLE, '--spec', specPath], {
    detached: true,
    // closedStdio: pipes whose reading ends are closed at once (every log write gets EPIPE).
    stdio: opts.closedStdio ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
    env: { ...process.env, ...opts.env, [k]: v },
  });
  closeSync(logFd);
  if (opts.closedStdio) {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  child.unref();
  const pid = child.pid!;
  const started: StartedGuardian = {
    dir,
    spec,
    specPath,
    pid,
    marker,
    manifest: undefined as unknown as GuardianManifest,
    dial: (o = {}) =>
      dialPeer(spec.socketPath, {
        hello: { proto: o.proto ?? ProtocolVersions.GUARDIAN, role: o.role ?? 'test', build: 'test', pid: process.pid, features: [] },
        timeoutMs: 5000,
      }),
    logText: () => {
      try {
        return readFileSync(join(dir, 'guardian.log'), 'utf8');
      } catch {
        return '';
      }
    },
    leftovers: () => processesWithMarker(marker),
    waitGone: async (ms = 10000) => {
      await until(`guardian ${pid} to exit`, ms, () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'latin1').includes(') Z'));
    },
    cleanup: async () => {
      for (let i = 0; i < 3; i++) {
        const left = processesWithMarker(marker);
        if (left.length === 0) break;
        for (const p of left) {
          try {
            process.kill(p.pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await until('the manifest', 10000, () => existsSync(spec.manifestPath));
    started.manifest = JSON.parse(readFileSync(spec.manifestPath, 'utf8')) as GuardianManifest;
  } catch (err) {
    const text = started.logText();
    await started.cleanup();
    throw new Error(`${(err as Error).message}\n--- guardian.log ---\n${text}`);
  }
  return started;
}

/** `g.exec` with defaults. */
export function exec(peer: RpcPeer, id: string, command: string, waitMs = 15000, quietMs?: number): Promise<ExecResult> {
  return peer.request<ExecResult>(G.exec, { id, command, waitMs, ...(quietMs !== undefined ? { quietMs } : {}) }, { deadlineMs: waitMs + 5000 });
}

/** Runs a command to completion and returns its record (fails when refused or still running). */
export async function run(peer: RpcPeer, id: string, command: string, waitMs = 15000): Promise<CommandRecord> {
  const r = await exec(peer, id, command, waitMs);
  if (!r.ok) throw new Error(`exec ${command} refused: ${r.reason}`);
  if (r.cmd.state !== 'exited') throw new Error(`exec ${command} still running after ${waitMs} ms`);
  return r.cmd;
}

/** Reads `[from, to)` of a source completely (paging by `next`). */
export async function readAll(peer: RpcPeer, src: string, from: number, to: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let at = from;
  while (at < to) {
    const r = await peer.request<ReadResult>(G.read, { src, from: at, max: Math.min(1 << 20, to - at) });
    if (r.data.length === 0) break;
    parts.push(Buffer.from(r.data));
    at = r.next;
  }
  return Buffer.concat(parts);
}

/** The output of a finished command as text. */
export async function outputOf(peer: RpcPeer, rec: CommandRecord): Promise<string> {
  return (await readAll(peer, 'pty', rec.outputStart, rec.outputEnd!)).toString('utf8');
}

/** Waits for a task to exit and returns its record. */
export async function waitTask(peer: RpcPeer, id: string, ms = 15000): Promise<TaskRecord> {
  const rec = await peer.request<TaskRecord>(G.wait, { id, waitMs: ms }, { deadlineMs: ms + 5000 });
  if (rec.state !== 'exited') throw new Error(`task ${id} still running after ${ms} ms`);
  return rec;
}

/**
 * The end of a test file's guardian: `g.shutdown`, wait until the process is gone, check that
 * nothing it started is left alive, and remove its folder (also when a step fails).
 */
export async function endGuardian(g: StartedGuardian, peer: RpcPeer): Promise<void> {
  try {
    await peer.request(G.shutdown, { reason: 'closed' }).catch(() => undefined);
    await g.waitGone();
    assert.deepEqual(g.leftovers(), [], 'no process of this guardian is left');
  } finally {
    await g.cleanup();
  }
}
