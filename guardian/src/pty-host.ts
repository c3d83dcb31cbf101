import { EventEmitter } from 'node:events';
import { accessSync, constants as fsConstants, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pty from 'node-pty';
import { describeRcSkipped, isLive, listProcesses, procLink, type RcSkipped, type SegmentLog, type ShellRestart } from '@holdfast/shared/protocol';
import type { Clock } from './clock.js';
import { ShellTimings } from './constants.js';
import { EchoRewriter } from './echo-rewrite.js';
import { probeForeground } from './input-probe.js';
import { log } from './log.js';
import { MarkerParser, type MarkerKind } from './marker-parser.js';
import { killEscalate, type KillTargets } from './process-killer.js';
import { INTERACTIVE_RC_FILES, readProgress, resetProgress, writeLoginFile } from './rc-files.js';
import { innermostPid, type Launch } from './sandbox-launch.js';
import { removeIntegrationFiles, supportsIntegration, type IntegrationFiles } from './shell-integration.js';
import { NO_PATTERNS, StreamRedactor, type PatternSet } from './secrets/redactor.js';

/**
 * The session's one interactive shell in a PTY (DESIGN §5), node-pty with raw bytes
 * (`encoding: null`).
 *
 * - Spawns `bash --noprofile --rcfile rc.sh -i` (the user's login + interactive files, then our
 *   integration, rc-files.ts). While it has not shown its first prompt the guardian watches it
 *   (issue 9, item 1): no prompt within `rcTimeoutMs` (default
 *   {@link ShellTimings.RC_PROMPT_TIMEOUT_MS}), a start-up file blocked reading the terminal
 *   with nothing printed for {@link ShellTimings.RC_INPUT_QUIET_MS} (`read -p`, a passphrase
 *   prompt), the shell replaced by another program (`exec /bin/sh -i`, `exec tmux`) or ended
 *   (`exit`) — then it ends that shell's terminal session, notes which file was running
 *   (`rc-progress`) and why ({@link RcSkipped}), and starts the fallback: `login.sh`, the login
 *   files without the interactive rc files and without that file. If the fallback fails the same
 *   way, the last resort is `--rcfile integration.sh` (nothing of the user's).
 * - {@link restart} starts a fresh shell by itself (idle logout, issue 9 item 3) in the mode that
 *   last worked; its start-up output does not count as activity (the TTL clock).
 * - Lines the guardian types can be shown as the command the agent sent (echo-rewrite.ts).
 * - Every byte read goes through the marker parser: the CLEAN stream is appended to the PTY log
 *   (all offsets are offsets in the clean stream); markers are emitted with the log offset at
 *   which they sat, tagged with the shell generation that printed them.
 * - `reset()` ends the shell's terminal session (kill escalation) and starts a fresh shell with
 *   generation + 1; the PTY log continues.
 * - The PTY is never paused for readers: data are appended as they come.
 */
export interface MarkerEvent {
  kind: MarkerKind;
  arg: string | null;
  /** Offset in the clean PTY stream where the marker sat. */
  offset: number;
  /** Shell generation that printed it. */
  generation: number;
}

/** How a shell ended. `expected` is true when the guardian ended it (reset, shutdown, fallback). */
export interface ShellExit {
  generation: number;
  pid: number;
  exitCode: number | null;
  signal: string | null;
  expected: boolean;
}

export interface PtyHostOptions {
  /** No first prompt with the user's files within this → fallback, ms (default {@link ShellTimings.RC_PROMPT_TIMEOUT_MS}). */
  rcTimeoutMs?: number;
  cwd: string;
  cols: number;
  rows: number;
  /** Environment for the shell (already merged: guardian env + spec env + TERM/PAGER). */
  env: Record<string, string>;
  shellPath: string;
  nonce: string;
  files: IntegrationFiles;
  /** Writes the integration files before a shell starts (they are removed once it is ready, issue 18). */
  writeFiles?: () => void;
  log: SegmentLog;
  clock: Clock;
  /** Runs the shell inside the session's sandbox (issue 17, sandbox-launch.ts); absent = as is. */
  wrap?: (file: string, args: string[], cwd: string) => Launch;
  /**
   * Secret values replaced by `[secret:NAME]` before bytes reach the PTY log (and so the screen
   * model, readers and every result; issue 12). A held-back partial value is released at each
   * marker and when the shell exits.
   */
  redaction?: () => PatternSet;
}

/** `rc`: the user's files; `login`: the fallback without interactive rc files; `bare`: integration only; `plain`: not bash. */
type Mode = 'rc' | 'login' | 'bare' | 'plain';

interface Instance {
  pty: pty.IPty;
  /** The process the PTY started (the shell, or the sandbox wrapping it); it leads the terminal session. */
  pid: number;
  /** The shell itself inside a sandbox, once it runs (see {@link innermostPid}). */
  shellPid?: number;
  generation: number;
  mode: Mode;
  parser: MarkerParser;
  ready: boolean;
  alive: boolean;
  /** Set when the guardian itself ends this shell. */
  expected: boolean;
  exited: Promise<ShellExit>;
  /** The shell's argument vector (to see an `exec` that kept the binary). */
  argv: string[];
  /** Programs the shell's process runs before it is the shell: node-pty's fork, the sandbox launcher. */
  before: (string | null)[];
  spawnedAt: number;
  /** Log offset when it was spawned (its start-up output begins here). */
  logStart: number;
  /** Start-up watch (until the first prompt). */
  watch: NodeJS.Timeout | null;
  deadline: NodeJS.Timeout | null;
  /** Being ended for a fallback. */
  givingUp: boolean;
  /** Output does not count as activity until its prompt is complete (a restart nobody asked for). */
  quietStart: boolean;
}

const SIGNAL_NAMES: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 3: 'SIGQUIT', 6: 'SIGABRT', 9: 'SIGKILL', 13: 'SIGPIPE', 15: 'SIGTERM' };

/** Finds the shell to run: bash on PATH or in /bin, /usr/bin, else `$SHELL`, else /bin/sh. */
export function findShell(envPath: string | undefined, fallback: string | undefined): string {
  const dirs = [...(envPath ?? '').split(':').filter(Boolean), '/bin', '/usr/bin', '/usr/local/bin'];
  for (const d of dirs) {
    const p = join(d, 'bash');
    try {
      accessSync(p, fsConstants.X_OK);
      if (statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return fallback && fallback.length > 0 ? fallback : '/bin/sh';
}

export class PtyHost extends EventEmitter<{ marker: [MarkerEvent]; output: []; ready: [number]; spawned: [number]; exit: [ShellExit] }> {
  private inst: Instance | null = null;
  private gen = 0;
  private cols: number;
  private rows: number;
  private skipped: RcSkipped | null = null;
  private restartInfo: ShellRestart | null = null;
  /** Mode the current generation's shell ended up in (a restart starts there). */
  private settledMode: Mode | null = null;
  /** One sentence the next command's result carries (rc files skipped, shell restarted). */
  private notice: string | null = null;
  private lastExitInfo: ShellExit | null = null;
  private readonly echo = new EchoRewriter();
  private readonly shellExe: string | null;
  private readonly nodeExe: string | null;
  /** No shell is started any more (the guardian is ending). */
  private final = false;
  private resetting: Promise<void> | null = null;
  private readonly redactor: StreamRedactor;

  constructor(private readonly opts: PtyHostOptions) {
    super();
    this.redactor = new StreamRedactor(opts.redaction ?? (() => NO_PATTERNS));
    this.cols = opts.cols;
    this.rows = opts.rows;
    this.shellExe = realpathOrNull(opts.shellPath);
    this.nodeExe = realpathOrNull(process.execPath);
  }

  /** Shell generation: 1 for the first shell, +1 on every reset. */
  get generation(): number {
    return this.gen;
  }

  /** Pid of the current shell (0 before start); inside a sandbox, the shell's own pid once it runs. */
  get pid(): number {
    const i = this.inst;
    if (!i) return 0;
    if (!this.opts.wrap || i.shellPid !== undefined) return i.shellPid ?? i.pid;
    const inner = i.alive ? innermostPid(i.pid) : null;
    // Only a descendant is remembered: right after the fork the spawned pid has not exec'd bwrap
    // yet and answers for itself, which must not stick (the prompt check reads this pid, issue 18).
    if (inner !== null && inner !== i.pid) i.shellPid = inner;
    return inner ?? i.pid;
  }

  /** The current shell runs. */
  get alive(): boolean {
    return this.inst?.alive ?? false;
  }

  /** The current shell printed its first prompt. */
  get ready(): boolean {
    return this.inst?.ready ?? false;
  }

  /** The current shell runs without the user's rc files (they never reached a prompt). */
  get rcFallback(): boolean {
    return this.skipped !== null;
  }

  /** Why the user's rc files were skipped, or null. */
  get rcSkipped(): RcSkipped | null {
    return this.skipped;
  }

  /** The last restart the guardian made by itself, or null. */
  get restarted(): ShellRestart | null {
    return this.restartInfo;
  }

  /**
   * How long a command may wait for the shell's first prompt, ms: the start-up files' timeout
   * twice (the user's files, then the fallback) plus slack, at least
   * {@link ShellTimings.SHELL_READY_WAIT_MS}.
   */
  get startupBudgetMs(): number {
    return Math.max(ShellTimings.SHELL_READY_WAIT_MS, 2 * (this.opts.rcTimeoutMs ?? ShellTimings.RC_PROMPT_TIMEOUT_MS) + 5000);
  }

  /** The pending notice for the next command's result (taken once), or null. */
  takeNotice(): string | null {
    const n = this.notice;
    this.notice = null;
    return n;
  }

  /** How the last shell ended (null while the first one runs). */
  get lastExit(): ShellExit | null {
    return this.lastExitInfo;
  }

  /** The PTY's slave device (e.g. `/dev/pts/3`), or null. */
  get ptsPath(): string | null {
    const t = this.inst?.pty as unknown as { ptsName?: string; _pty?: string } | undefined;
    const p = t?.ptsName ?? t?._pty;
    return typeof p === 'string' ? p : null;
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.cols, rows: this.rows };
  }

  /** Starts the first shell. */
  start(): void {
    this.gen = 1;
    this.spawnShell(supportsIntegration(this.opts.shellPath) ? 'rc' : 'plain');
  }

  /**
   * Starts a fresh shell (generation + 1) after the current one ended by itself, in the mode that
   * worked last, and records why (issue 9, item 3). Its start-up output is not activity.
   */
  restart(info: ShellRestart): void {
    if (this.final || this.alive) return;
    this.restartInfo = info;
    this.notice = info.detail;
    this.gen += 1;
    this.spawnShell(this.settledMode ?? (supportsIntegration(this.opts.shellPath) ? 'rc' : 'plain'), { quietStart: true });
  }

  /**
   * Types a line for a command (`prefix` first: keys that clear readline's line); its echo is
   * shown as `display` (see echo-rewrite.ts) when that differs from the line and nothing had to
   * be cleared first.
   */
  typeLine(prefix: string, line: string, display: string): void {
    const i = this.inst;
    if (!i || !i.alive) return;
    // With a prefix readline first redraws the line it clears; that redraw is not ours to replace.
    if (display !== line && prefix === '') {
      const before = this.echo.expect(display);
      if (before) this.appendClean(before);
    }
    this.write(`${prefix}${line}\r`);
  }

  /** Stops rewriting the echo of the last typed line (its start marker did not come); held bytes go to the log. */
  releaseEcho(): void {
    const held = this.echo.release();
    if (held) {
      this.appendClean(held);
      this.emit('output');
    }
  }

  /** Writes input to the PTY (no-op when the shell is gone). */
  write(data: string | Buffer): void {
    const i = this.inst;
    if (!i || !i.alive) return;
    try {
      i.pty.write(data as string);
    } catch (err) {
      log('pty write failed', err);
    }
  }

  /** Resizes the PTY (the shell gets SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    const i = this.inst;
    if (!i || !i.alive) return;
    try {
      i.pty.resize(cols, rows);
    } catch (err) {
      log('pty resize failed', err);
    }
  }

  /**
   * Ends the current shell's terminal session (every process whose session id is the shell's)
   * with kill escalation, and waits for the shell's exit. Resolves with how it ended.
   */
  async endSession(opts: { final?: boolean; also?: KillTargets } = {}): Promise<ShellExit | null> {
    const i = this.inst;
    if (i) stopWatch(i);
    if (opts.final) this.final = true;
    if (i) i.expected = true;
    const sessions = [...(i ? [i.pid] : []), ...(opts.also?.sessions ?? [])];
    const outcome = await killEscalate({ sessions, groups: opts.also?.groups ?? [] });
    if (!i) return null;
    if (outcome.survivors.length > 0) log(`shell session ${i.pid}: survivors after SIGKILL: ${outcome.survivors.join(' ')}`);
    return await Promise.race([i.exited, new Promise<null>((r) => setTimeout(() => r(null), 3000).unref())]);
  }

  /**
   * Ends the current shell (see {@link endSession}) and starts a fresh one, generation + 1.
   * Concurrent calls share one reset.
   */
  reset(): Promise<void> {
    this.resetting ??= (async () => {
      try {
        await this.endSession();
        this.gen += 1;
        this.skipped = null;
        this.restartInfo = null;
        this.notice = null;
        this.settledMode = null;
        this.spawnShell(supportsIntegration(this.opts.shellPath) ? 'rc' : 'plain');
      } finally {
        this.resetting = null;
      }
    })();
    return this.resetting;
  }

  private spawnShell(mode: Mode, o2: { quietStart?: boolean; loginFile?: string } = {}): void {
    if (this.final) return;
    const o = this.opts;
    let rcfile: string | null = null;
    if (mode === 'rc') rcfile = o.files.rcFile;
    else if (mode === 'login') rcfile = o2.loginFile ?? join(o.files.dir, 'login.sh');
    else if (mode === 'bare') rcfile = o.files.integrationFile;
    const args = rcfile ? ['--noprofile', '--rcfile', rcfile, '-i'] : ['-i'];
    if (mode === 'rc' || mode === 'login') resetProgress(o.files);
    let cwd = o.cwd;
    if (!existsSync(cwd)) {
      log(`cwd ${cwd} does not exist; starting the shell in ${o.env.HOME ?? '/'}`);
      cwd = o.env.HOME && existsSync(o.env.HOME) ? o.env.HOME : '/';
    }
    if (mode !== 'plain') o.writeFiles?.();
    let p: pty.IPty;
    let launcher: string | null = null;
    try {
      const run = o.wrap ? o.wrap(o.shellPath, args, cwd) : { file: o.shellPath, args };
      launcher = run.file === o.shellPath ? null : realpathOrNull(run.file);
      p = pty.spawn(run.file, run.args, { name: o.env.TERM ?? 'xterm-256color', cols: this.cols, rows: this.rows, cwd, env: o.env, encoding: null });
    } catch (err) {
      // node-pty reports exec failures as exit code 1; a throw means no PTY could be made at all.
      log(`cannot start the shell ${o.shellPath}`, err);
      const info: ShellExit = { generation: this.gen, pid: 0, exitCode: null, signal: null, expected: false };
      this.inst = null;
      this.lastExitInfo = info;
      queueMicrotask(() => this.emit('exit', info));
      return;
    }
    let resolveExit!: (e: ShellExit) => void;
    const inst: Instance = {
      pty: p,
      pid: p.pid,
      generation: this.gen,
      mode,
      parser: new MarkerParser(o.nonce),
      ready: false,
      alive: true,
      expected: false,
      exited: new Promise<ShellExit>((r) => (resolveExit = r)),
      argv: [o.shellPath, ...args],
      before: [this.nodeExe, launcher],
      spawnedAt: Date.now(),
      logStart: o.log.end,
      watch: null,
      deadline: null,
      givingUp: false,
      quietStart: o2.quietStart === true,
    };
    this.inst = inst;
    this.releaseEcho();
    log(`shell ${o.shellPath} pid ${p.pid} generation ${this.gen} mode ${mode} started in ${cwd}`);
    this.emit('spawned', p.pid);
    p.onData((chunk) => this.onData(inst, chunk as unknown as Buffer));
    p.onExit(({ exitCode, signal }) => {
      const rest = inst.parser.flush();
      if (rest.length > 0) this.appendClean(rest);
      this.opts.log.append(this.redactor.flush());
      inst.alive = false;
      stopWatch(inst);
      const sig = signal ? (SIGNAL_NAMES[signal] ?? `SIG${signal}`) : null;
      const info: ShellExit = { generation: inst.generation, pid: inst.pid, exitCode: sig ? null : exitCode, signal: sig, expected: inst.expected };
      resolveExit(info);
      this.onExit(inst, info);
    });
    if (mode === 'rc' || mode === 'login') {
      const timeoutMs = o.rcTimeoutMs ?? ShellTimings.RC_PROMPT_TIMEOUT_MS;
      inst.deadline = setTimeout(() => void this.giveUp(inst, 'timeout', `did not reach a prompt within ${formatSeconds(timeoutMs)}${stillRunning(inst.pid, this.pid)}`), timeoutMs);
      inst.watch = setInterval(() => this.watchStartup(inst), ShellTimings.RC_WATCH_INTERVAL_MS);
    }
  }

  /**
   * While the start-up files load: a prompt waiting for input, or the shell replaced by another
   * program — the shell's process (inside a sandbox, the innermost one) running another binary
   * than the shell or the shell with other arguments (an `exec`). What runs before the shell
   * (node-pty's fork of the guardian, the sandbox launcher) is not judged.
   */
  private watchStartup(inst: Instance): void {
    if (this.inst !== inst || inst.ready || !inst.alive || inst.givingUp) return;
    const pid = this.pid;
    const exe = procLink(pid, 'exe');
    if (exe !== null && !exe.endsWith(' (deleted)') && !inst.before.includes(exe)) {
      const argv = readCmdline(pid);
      if (exe !== this.shellExe || (argv !== null && argv.join('\0') !== inst.argv.join('\0'))) {
        void this.giveUp(inst, 'replaced', `replaced the shell with "${(argv ?? [exe]).join(' ').slice(0, 120)}"`);
        return;
      }
    }
    const quietSince = Math.max(this.opts.clock.lastPtyActivityAt, inst.spawnedAt);
    if (Date.now() - quietSince < ShellTimings.RC_INPUT_QUIET_MS) return;
    if (!probeForeground(pid, this.ptsPath).readingTty) return;
    const prompt = this.lastLine(inst);
    void this.giveUp(inst, 'input', prompt ? `waited for input at "${prompt}"` : 'waited for terminal input');
  }

  /** The last non-empty line the shell printed since it started (escape sequences removed), capped. */
  private lastLine(inst: Instance): string {
    const end = this.opts.log.end;
    const from = Math.max(inst.logStart, end - 4096);
    const text = this.opts.log
      .read(from, end - from)
      .data.toString('utf8')
      .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
      .replace(/\x1b[@-_]/g, '');
    const lines = text
      .split(/\r?\n|\r/)
      .map((l) => l.replace(/[\x00-\x1f\x7f]/g, '').trimEnd())
      .filter((l) => l.length > 0);
    return (lines[lines.length - 1] ?? '').slice(-80);
  }

  /**
   * The start-up files of `inst` failed: record why and which file, end its terminal session and
   * start the next fallback (`rc` → `login` → `bare`).
   */
  private async giveUp(inst: Instance, reason: RcSkipped['reason'], detail: string): Promise<void> {
    if (inst.givingUp || this.final) return;
    inst.givingUp = true;
    stopWatch(inst);
    const file = readProgress(this.opts.files);
    const next: Mode = inst.mode === 'rc' ? 'login' : 'bare';
    const loaded: RcSkipped['loaded'] = next === 'login' ? 'login' : 'none';
    if (this.skipped === null || inst.mode === 'rc') {
      this.skipped = { reason, file, detail, loaded };
    } else {
      this.skipped = { ...this.skipped, loaded, detail: `${this.skipped.detail}; without them ${file ?? 'the login files'} ${detail} too` };
    }
    log(`start-up files (${inst.mode}) failed: ${file ?? '?'} ${detail}; falling back to ${next}`);
    inst.expected = true;
    await killEscalate({ sessions: [inst.pid] });
    if (inst.alive) await Promise.race([inst.exited, new Promise((r) => setTimeout(r, 3000).unref())]);
    if (this.inst !== inst || this.final) return;
    if (next === 'login') {
      const home = this.opts.env.HOME ?? '';
      const skip = [...INTERACTIVE_RC_FILES, ...(file !== null ? [file] : [])].map((f) => (f.startsWith('$HOME/') && home.startsWith('/') ? home + f.slice(5) : f));
      this.spawnShell('login', { quietStart: inst.quietStart, loginFile: writeLoginFile(this.opts.files, skip) });
    } else {
      this.spawnShell('bare', { quietStart: inst.quietStart });
    }
  }

  /** Appends clean PTY bytes through the secret redactor (every byte of the PTY log goes through it, issue 12). */
  private appendClean(data: Buffer): void {
    this.opts.log.append(this.redactor.push(data));
  }

  private onData(inst: Instance, chunk: Buffer): void {
    const items = inst.parser.push(chunk);
    const current = inst === this.inst;
    const activity = current && !inst.quietStart;
    for (const it of items) {
      if ('data' in it) {
        const out = current ? this.echo.data(it.data) : it.data;
        if (out) this.appendClean(out);
        continue;
      }
      if (!current) continue; // markers of an ended shell mean nothing any more
      const held = this.echo.marker(it.marker);
      if (held) this.appendClean(held);
      // A secret's value never spans a marker: what the redactor held back belongs before it.
      this.opts.log.append(this.redactor.flush());
      if (it.marker === 'A' && !inst.ready) {
        inst.ready = true;
        // The shell has read its rc files: the nonce they hold leaves the disk (issue 18).
        if (this.opts.writeFiles) removeIntegrationFiles(this.opts.files);
        stopWatch(inst);
        this.settledMode = inst.mode;
        if (this.skipped && inst.mode !== 'rc' && inst.mode !== 'plain') this.notice ??= describeRcSkipped(this.skipped);
        log(`shell pid ${inst.pid} generation ${inst.generation} ready (${inst.mode})`);
        this.emit('ready', inst.generation);
      }
      this.emit('marker', { kind: it.marker, arg: it.arg, offset: this.opts.log.end, generation: inst.generation });
      if (it.marker === 'B') inst.quietStart = false;
    }
    if (activity) this.opts.clock.ptyActivity();
    this.emit('output');
  }

  private onExit(inst: Instance, info: ShellExit): void {
    log(`shell pid ${info.pid} generation ${info.generation} exited code ${info.exitCode} signal ${info.signal}${info.expected ? ' (ended by the guardian)' : ''}`);
    if (inst !== this.inst) return;
    this.releaseEcho();
    if ((inst.mode === 'rc' || inst.mode === 'login') && !inst.ready && !inst.expected && !this.final) {
      // The start-up files ended the shell before any prompt (e.g. an `exit` in .bashrc).
      const how = info.signal ? `killed by ${info.signal}` : `exit code ${info.exitCode}`;
      void this.giveUp(inst, 'exited', `ended the shell before its first prompt (${how})`);
      return;
    }
    if (inst.givingUp) return;
    this.lastExitInfo = info;
    this.emit('exit', info);
  }
}

function stopWatch(inst: Instance): void {
  if (inst.watch) clearInterval(inst.watch);
  if (inst.deadline) clearTimeout(inst.deadline);
  inst.watch = null;
  inst.deadline = null;
}

function realpathOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function readCmdline(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.length > 0 ? raw.replace(/\0$/, '').split('\0') : null;
  } catch {
    return null;
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * ` (still running: sleep 8)` — what the terminal session led by `leader` runs besides the shell
 * (`shellPid`; the same process without a sandbox) and a sandbox around it, or ''.
 */
function stillRunning(leader: number, shellPid: number): string {
  const cmds = listProcesses()
    .filter((p) => p.sid === leader && p.pid !== leader && p.pid !== shellPid && isLive(p) && innermostPid(p.pid) === p.pid)
    .map((p) => (readCmdline(p.pid) ?? []).join(' '))
    .filter((c) => c.length > 0)
    .slice(0, 3);
  return cmds.length > 0 ? ` (still running: ${cmds.join('; ').slice(0, 160)})` : '';
}
