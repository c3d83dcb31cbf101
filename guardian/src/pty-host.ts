import { EventEmitter } from 'node:events';
import { accessSync, constants as fsConstants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pty from 'node-pty';
import type { SegmentLog } from '@holdfast/shared/protocol';
import type { Clock } from './clock.js';
import { ShellTimings } from './constants.js';
import { log } from './log.js';
import { MarkerParser, type MarkerKind } from './marker-parser.js';
import { killEscalate, type KillTargets } from './process-killer.js';
import { innermostPid, type Launch } from './sandbox-launch.js';
import { removeIntegrationFiles, supportsIntegration, type IntegrationFiles } from './shell-integration.js';

/**
 * The session's one interactive shell in a PTY (DESIGN §5), node-pty with raw bytes
 * (`encoding: null`).
 *
 * - Spawns `bash --noprofile --rcfile rc.sh -i` (the user's login + interactive files, then our
 *   integration); when no first prompt appears within {@link ShellTimings.RC_PROMPT_TIMEOUT_MS}
 *   or the shell dies before its first prompt, it ends that shell's terminal session and falls
 *   back to `--rcfile integration.sh` (the `--norc` fallback, integration only).
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
}

type Mode = 'rc' | 'norc' | 'plain';

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
  private rcTimer: NodeJS.Timeout | null = null;
  private cols: number;
  private rows: number;
  private usedFallback = false;
  private lastExitInfo: ShellExit | null = null;
  /** No shell is started any more (the guardian is ending). */
  private final = false;
  private resetting: Promise<void> | null = null;

  constructor(private readonly opts: PtyHostOptions) {
    super();
    this.cols = opts.cols;
    this.rows = opts.rows;
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
    return this.usedFallback;
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
    this.clearRcTimer();
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
        this.usedFallback = false;
        this.spawnShell(supportsIntegration(this.opts.shellPath) ? 'rc' : 'plain');
      } finally {
        this.resetting = null;
      }
    })();
    return this.resetting;
  }

  private spawnShell(mode: Mode): void {
    if (this.final) return;
    const o = this.opts;
    const args =
      mode === 'rc'
        ? ['--noprofile', '--rcfile', o.files.rcFile, '-i']
        : mode === 'norc'
          ? ['--noprofile', '--rcfile', o.files.integrationFile, '-i']
          : ['-i'];
    let cwd = o.cwd;
    if (!existsSync(cwd)) {
      log(`cwd ${cwd} does not exist; starting the shell in ${o.env.HOME ?? '/'}`);
      cwd = o.env.HOME && existsSync(o.env.HOME) ? o.env.HOME : '/';
    }
    if (mode !== 'plain') o.writeFiles?.();
    let p: pty.IPty;
    try {
      const run = o.wrap ? o.wrap(o.shellPath, args, cwd) : { file: o.shellPath, args };
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
    };
    this.inst = inst;
    log(`shell ${o.shellPath} pid ${p.pid} generation ${this.gen} mode ${mode} started in ${cwd}`);
    this.emit('spawned', p.pid);
    p.onData((chunk) => this.onData(inst, chunk as unknown as Buffer));
    p.onExit(({ exitCode, signal }) => {
      const rest = inst.parser.flush();
      if (rest.length > 0) this.appendClean(rest);
      inst.alive = false;
      const sig = signal ? (SIGNAL_NAMES[signal] ?? `SIG${signal}`) : null;
      const info: ShellExit = { generation: inst.generation, pid: inst.pid, exitCode: sig ? null : exitCode, signal: sig, expected: inst.expected };
      resolveExit(info);
      this.onExit(inst, info);
    });
    if (mode === 'rc') {
      this.clearRcTimer();
      this.rcTimer = setTimeout(() => {
        this.rcTimer = null;
        if (this.inst === inst && !inst.ready && inst.alive) {
          log(`no prompt within ${ShellTimings.RC_PROMPT_TIMEOUT_MS} ms with the user's rc files: falling back to --norc`);
          void this.fallBack(inst);
        }
      }, ShellTimings.RC_PROMPT_TIMEOUT_MS);
    }
  }

  private async fallBack(inst: Instance): Promise<void> {
    inst.expected = true;
    this.usedFallback = true;
    await killEscalate({ sessions: [inst.pid] });
    await Promise.race([inst.exited, new Promise((r) => setTimeout(r, 3000).unref())]);
    if (this.inst === inst) this.spawnShell('norc');
  }

  private clearRcTimer(): void {
    if (this.rcTimer) clearTimeout(this.rcTimer);
    this.rcTimer = null;
  }

  private appendClean(data: Buffer): void {
    this.opts.log.append(data);
  }

  private onData(inst: Instance, chunk: Buffer): void {
    const items = inst.parser.push(chunk);
    for (const it of items) {
      if ('data' in it) {
        this.opts.log.append(it.data);
        continue;
      }
      if (inst !== this.inst) continue; // markers of an ended shell mean nothing any more
      if (it.marker === 'A' && !inst.ready) {
        inst.ready = true;
        this.clearRcTimer();
        // The shell has read its rc files: the nonce they hold leaves the disk (issue 18).
        if (this.opts.writeFiles) removeIntegrationFiles(this.opts.files);
        log(`shell pid ${inst.pid} generation ${inst.generation} ready`);
        this.emit('ready', inst.generation);
      }
      this.emit('marker', { kind: it.marker, arg: it.arg, offset: this.opts.log.end, generation: inst.generation });
    }
    this.opts.clock.ptyActivity();
    this.emit('output');
  }

  private onExit(inst: Instance, info: ShellExit): void {
    log(`shell pid ${info.pid} generation ${info.generation} exited code ${info.exitCode} signal ${info.signal}${info.expected ? ' (ended by the guardian)' : ''}`);
    if (inst !== this.inst) return;
    if (inst.mode === 'rc' && !inst.ready && !inst.expected && !this.final) {
      // The user's rc files ended the shell before any prompt (e.g. an `exit` in .bashrc).
      log('the shell ended before its first prompt with the user\'s rc files: falling back to --norc');
      this.clearRcTimer();
      this.usedFallback = true;
      this.spawnShell('norc');
      return;
    }
    this.clearRcTimer();
    this.lastExitInfo = info;
    this.emit('exit', info);
  }
}
