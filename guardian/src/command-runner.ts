import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRecord, ExecParams, ExecResult, InputParams, SegmentLog } from '@holdfast/shared/protocol';
import { HoldfastError, KEY_SEQUENCES } from '@holdfast/shared/protocol';
import type { Clock } from './clock.js';
import { commandLine, typedLineFromEcho } from './command-line.js';
import { CommandLimits, InputWatchTimings, ShellTimings } from './constants.js';
import { InputWatch } from './input-watch.js';
import { looksLikePrompt, probeForeground, shellPromptEvidence } from './input-probe.js';
import { log } from './log.js';
import { killEscalate } from './process-killer.js';
import { procLink, readProcStat } from '@holdfast/shared/protocol';
import type { MarkerEvent, PtyHost } from './pty-host.js';
import type { ScreenModel } from './screen-model.js';
import { prepareHandoff, type SecretHandoff } from './secrets/secret-pipe.js';
import type { TerminalSanity } from './terminal-sanity.js';

/**
 * Foreground commands in the PTY (DESIGN §5): one at a time, exact boundaries from the shell
 * integration markers, exit codes from `D;<code>`.
 *
 * Boundaries, in clean PTY offsets: `outputStart` = the `C` marker (after the echo of the command
 * line), `outputEnd` = the `D` marker (before the user's PROMPT_COMMAND output and the prompt).
 * A line a human types through `g.input` becomes a record too (`typed_<n>`), and it occupies the
 * foreground like any other command. Every line the guardian types is exactly one command (see
 * command-line.ts), so it always prints `C`: a `D` before that `C` belongs to an earlier line and
 * is ignored. A `C` with no following `D` (PROMPT_COMMAND clobbered) ends the command at the
 * next prompt (`A`) with no exit code; a shell that exits ends it with the shell's exit code; a
 * command bash never started ends on `g.stop` with 130. An announced end counts only once the
 * prompt's end (`B`) is followed by kernel evidence that the shell itself waits at its prompt
 * (see `confirmEnd`, issue 18): a program cannot end its own command with forged markers.
 *
 * Waiting (`exec`, `wait`) returns when the command finished, when `waitMs` passed (or the
 * caller's request deadline is near), or early with `awaitingInput: true` when the PTY has been
 * quiet for `quietMs` (counted from the later of the last output, the last input and the start
 * of the call) and the foreground reads the terminal — or waits in poll/select with a prompt-like
 * cursor line or a full-screen program on the alternate screen.
 *
 * Nobody needs to wait for that to be known: the runner watches a quiet foreground command itself
 * (input-watch.ts: first check after {@link InputWatchTimings.FIRST_CHECK_QUIET_MS} of quiet, then
 * backing off), sets `awaitingInput` on its record with the same detection, and reports every
 * change through `onAwaiting` (the `g.awaiting` event). Input or new output clears it.
 *
 * `exec` takes the foreground at once and types the command as soon as the shell is at its
 * prompt (issue 9, item 5): `waitMs` counts from the call's start, also on a new session whose
 * shell is still loading the user's files — the answer may be the record still `queued` (not
 * typed yet), which is typed later unless it is stopped. A call aborted (cancelled by the client,
 * its connection gone, its deadline passed) before the command was typed ends it untyped: it
 * never starts (`notStarted: 'cancelled'`, item 4).
 */
export interface CommandRunnerDeps {
  host: PtyHost;
  log: SegmentLog;
  screen: ScreenModel;
  clock: Clock;
  /** Called once for every command that finished (for the `g.done` event). */
  onDone: (rec: CommandRecord) => void;
  /**
   * Called when the foreground command's `awaitingInput` changes (set by a wait or the guardian's
   * own watch, cleared by input or new output), with a copy of its record (for `g.awaiting`).
   */
  onAwaiting?: (rec: CommandRecord) => void;
  /** Folder for long commands typed as `eval "$(<file)"` (created 0700 on demand); also holds secret pipes. */
  spillDir: string;
  /**
   * The values of held secrets by name, for `secrets` on `g.exec` (issue 12).
   * @throws HoldfastError SECRET_NOT_FOUND.
   */
  secretValues?: (names: readonly string[]) => Record<string, Buffer>;
  /** Asks the next prompt to restore the terminal modes (issue 9, item 7). */
  sanity: TerminalSanity;
}

/** Cancellation and deadline of the request being served. */
export interface WaitContext {
  signal?: AbortSignal;
  /** Answer before this epoch-ms deadline (the caller's request deadline minus a margin). */
  deadline?: number;
}

interface Foreground {
  rec: CommandRecord;
  /** The line was typed into the shell. */
  typed: boolean;
  /** The `C` marker was seen. */
  started: boolean;
  /** Files holding a long command (removed when it finishes). */
  spillFiles: string[];
  /** The PTY log's lost bytes when the command was typed (a full disk; docs/sessions.md). */
  lostAtStart?: number;
  /** Pipes handing secret values to the command (removed when it finishes; issue 12). */
  handoff?: SecretHandoff;
  /**
   * The end the markers announced (`D`, or `A` without one), waiting for the shell's prompt to be
   * confirmed by the kernel (issue 18); a later `D` replaces it.
   */
  pendingEnd?: { code: number | null; offset: number };
  /** Bumped by every marker: a confirmation in flight for an older one is dropped. */
  verifying?: number;
}

/**
 * Pauses between checks that the shell sits at its prompt after an end marker, ms: doubling from
 * 1 up to {@link PROMPT_CHECK_FAST_MAX_MS} (the shell reaches readline within milliseconds), and up
 * to {@link PROMPT_CHECK_MAX_MS} once a check has waited {@link PROMPT_CHECK_SLOW_AFTER_MS} (a
 * program holding the terminal after printing fake markers).
 */
const PROMPT_CHECK_FAST_MAX_MS = 8;
const PROMPT_CHECK_MAX_MS = 50;
const PROMPT_CHECK_SLOW_AFTER_MS = 1000;
/** An end marker not confirmed for this long is logged once with the kernel's view, ms. */
const PROMPT_UNCONFIRMED_LOG_MS = 2000;

function procSyscall(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/syscall`, 'latin1').trim().split(' ').slice(0, 2).join(' ');
  } catch {
    return '?';
  }
}

const copy = (r: CommandRecord): CommandRecord => ({ ...r });
const MIN_PROBE_INTERVAL_MS = 250;

export class CommandRunner {
  private fg: Foreground | null = null;
  private readonly finished = new Map<string, CommandRecord>();
  private typedCount = 0;
  private spillCount = 0;
  private atPrompt = false;
  private promptEnd = 0;
  /** Something was typed at the prompt since it appeared (cleared before an exec types). */
  private dirtyPrompt = false;
  /** Input was written while a command ran: a partial line may wait in the terminal for readline. */
  private typedAhead = false;
  private lastInputAt = 0;
  private readonly listeners = new Set<() => void>();
  private closed = false;
  private readonly watch: InputWatch;

  constructor(private readonly d: CommandRunnerDeps) {
    this.watch = new InputWatch({
      lastActivityAt: () => Math.max(this.d.clock.lastPtyActivityAt, this.lastInputAt),
      check: () => this.watchCheck(),
      firstMs: InputWatchTimings.FIRST_CHECK_QUIET_MS,
      maxMs: InputWatchTimings.MAX_CHECK_INTERVAL_MS,
    });
    d.host.on('marker', (m) => this.onMarker(m));
    d.host.on('ready', () => this.notify());
    d.host.on('exit', (e) => this.onShellGone(e.expected ? null : e.exitCode));
    d.host.on('output', () => {
      const fg = this.fg;
      if (!fg) return;
      if (fg.rec.awaitingInput && this.d.clock.lastPtyActivityAt > this.lastInputAt) this.clearAwaiting(fg);
      this.watch.poke();
    });
  }

  /** The running foreground command (a copy), or null. */
  get foreground(): CommandRecord | null {
    return this.fg ? copy(this.fg.rec) : null;
  }

  /** A command record by id (running or among the last finished), or null. */
  get(id: string): CommandRecord | null {
    if (this.fg?.rec.id === id) return copy(this.fg.rec);
    const r = this.finished.get(id);
    return r ? copy(r) : null;
  }

  /** `g.exec` (see the class comment). Refusals are values: already running, shell not ready/exited, cancelled. */
  async exec(p: ExecParams, ctx: WaitContext = {}): Promise<ExecResult> {
    const callStart = Date.now();
    if (this.closed || (!this.d.host.alive && this.d.host.lastExit && !this.d.host.lastExit.expected)) {
      return { ok: false, reason: 'shell_exited', running: null };
    }
    if (this.fg) return { ok: false, reason: 'command_already_running', running: copy(this.fg.rec) };
    if (ctx.signal?.aborted) return { ok: false, reason: 'cancelled', running: null };
    if (p.secrets && p.secrets.length > 0) {
      if (!this.d.secretValues) throw new HoldfastError('BAD_REQUEST', 'this guardian holds no secrets');
      for (const b of Object.values(this.d.secretValues(p.secrets))) b.fill(0); // SECRET_NOT_FOUND before anything is typed
    }
    this.d.clock.instruction(true);
    const display = p.display ?? p.command;
    const rec: CommandRecord = { kind: 'command', id: p.id, command: display, state: 'running', startedAt: callStart, outputStart: this.d.log.end, queued: true };
    const fg: Foreground = { rec, typed: false, started: false, spillFiles: [] };
    this.fg = fg;
    this.finished.delete(p.id);
    const typing = this.typeWhenReady(fg, p.command, display, p.secrets ?? []);
    const deadline = Math.min(callStart + p.waitMs, ctx.deadline ?? Infinity);
    // Wait for the line to be typed, bounded by this call's own deadline (not the shell's start-up).
    await this.until(() => fg.typed || this.fg !== fg || this.closed, deadline, ctx);
    if (!fg.typed && this.fg === fg) {
      if (ctx.signal?.aborted) {
        this.finish(fg, null, this.d.log.end, 'cancelled');
        return { ok: false, reason: 'cancelled', running: null };
      }
      return this.answer(fg);
    }
    if ((await typing) !== 'typed') {
      // Ended before it was typed: stopped (an answer), or the shell never became ready (a refusal).
      const r = this.get(p.id);
      if (r?.notStarted === 'shell_not_ready' || r?.notStarted === 'shell_exited') return { ok: false, reason: r.notStarted, running: null };
      return this.answer(fg, r);
    }
    // Until bash prints the start marker, outputStart is provisional (it would include the echo of
    // the command line): even a zero-wait exec waits for the marker, bounded.
    await this.until(() => fg.started || this.fg !== fg || this.closed, Date.now() + ShellTimings.START_MARKER_WAIT_MS, ctx);
    if (!fg.started && this.fg === fg) this.d.host.releaseEcho();
    const cmd = await this.waitRecord(p.id, Math.max(0, deadline - Date.now()), p.quietMs ?? CommandLimits.DEFAULT_QUIET_MS, ctx, callStart);
    return this.answer(fg, cmd);
  }

  /** The `ok` answer of exec, with the shell notice the caller has not had yet. */
  private answer(fg: Foreground, cmd?: CommandRecord | null): ExecResult {
    const notice = this.d.host.takeNotice();
    return { ok: true, cmd: cmd ?? copy(fg.rec), ...(notice !== null ? { notice } : {}) };
  }

  /**
   * Types `command` for `fg` once the shell shows its prompt. Resolves `typed`, or `gone` when the
   * record ended first (stopped, cancelled, shell gone) or the shell never became ready — then the
   * record is finished untyped.
   */
  private async typeWhenReady(fg: Foreground, command: string, display: string, secrets: readonly string[]): Promise<'typed' | 'gone'> {
    const mine = (): boolean => this.fg === fg && !this.closed;
    if (!this.d.host.ready) {
      await this.until(() => this.d.host.ready || !mine(), Date.now() + this.d.host.startupBudgetMs, {});
      if (mine() && !this.d.host.ready) this.finish(fg, null, this.d.log.end, this.d.host.alive ? 'shell_not_ready' : 'shell_exited');
    }
    if (mine() && !this.atPrompt) await this.until(() => this.atPrompt || !mine(), Date.now() + ShellTimings.PROMPT_WAIT_MS, {});
    if (!mine()) return 'gone';
    // Ctrl-E Ctrl-U: clear whatever readline holds (a partial line typed at the prompt or left
    // over from input meant for the previous command) so it is never run with our command.
    const prefix = this.dirtyPrompt || this.typedAhead ? '\x05\x15' : '';
    this.typedAhead = false;
    this.atPrompt = false;
    this.dirtyPrompt = false;
    this.lastInputAt = Date.now();
    let line: string;
    try {
      // With secrets, the command runs in a subshell that reads each value from a one-shot pipe
      // (its echo still shows `display`): nothing with a value is typed or written to a file.
      if (secrets.length > 0) fg.handoff = prepareHandoff(this.d.spillDir, this.d.secretValues!(secrets));
      line = commandLine(
        fg.handoff ? fg.handoff.wrap(command) : command,
        (text) => {
          mkdirSync(this.d.spillDir, { recursive: true, mode: 0o700 });
          const file = join(this.d.spillDir, `${++this.spillCount}.sh`);
          fg.spillFiles.push(file);
          try {
            writeFileSync(file, text, { mode: 0o600 });
          } catch (err) {
            rmSync(file, { force: true });
            throw err;
          }
          return file;
        },
        display,
      );
    } catch (err) {
      // A long command could not be spilled to a file (a full disk): type it inline instead
      // (slower for readline, but it runs). Anything else still fails the command.
      const code = (err as NodeJS.ErrnoException).code;
      const full = code === 'ENOSPC' || code === 'EDQUOT';
      log(`cannot write the command file: ${(err as Error).message}${full ? ' (typing it inline)' : ''}`);
      if (!full || fg.handoff) {
        fg.handoff?.dispose();
        this.finish(fg, null, this.d.log.end, 'shell_not_ready');
        return 'gone';
      }
      line = commandLine(command, undefined, display);
    }
    fg.rec.outputStart = this.d.log.end;
    fg.lostAtStart = this.d.log.lostBytes;
    fg.typed = true;
    this.d.sanity.noteCommand(display);
    delete fg.rec.queued;
    this.d.host.typeLine(prefix, line, display);
    void fg.handoff?.feed();
    this.watch.start();
    this.notify();
    return 'typed';
  }

  /** `g.wait` for a command id; null when the id is not a known command. */
  async wait(id: string, waitMs: number, quietMs: number | undefined, ctx: WaitContext = {}): Promise<CommandRecord | null> {
    if (!this.get(id)) return null;
    return this.waitRecord(id, waitMs, quietMs ?? CommandLimits.DEFAULT_QUIET_MS, ctx);
  }

  /** `g.input`: text first, then the named keys, written to the PTY as one write. */
  input(p: InputParams): void {
    let data = p.text ?? '';
    for (const k of p.keys ?? []) data += KEY_SEQUENCES[k] ?? '';
    if (data.length === 0) return;
    this.d.clock.instruction(true);
    this.lastInputAt = Date.now();
    if (this.atPrompt) this.dirtyPrompt = true;
    else {
      this.typedAhead = true;
      this.d.sanity.request(); // a program is being used interactively
    }
    if (this.fg) {
      this.clearAwaiting(this.fg);
      this.watch.poke();
    }
    this.d.host.write(data);
  }

  /**
   * `g.stop` for the foreground command: Ctrl-C, then kill escalation of the terminal's
   * foreground process group (when it is not the shell itself). A command still queued (not typed)
   * just never starts; with `ifQueued` only such a command is ended (issue 9, item 4). Returns the
   * record after the attempt (still `running` if nothing could end it), or null when `id` is not a
   * command.
   */
  async stop(id: string, ifQueued = false): Promise<CommandRecord | null> {
    const fg = this.fg;
    if (!fg || fg.rec.id !== id) return this.get(id);
    if (!fg.typed) {
      this.d.clock.instruction(false);
      this.finish(fg, null, this.d.log.end, ifQueued ? 'cancelled' : 'stopped');
      return this.get(id);
    }
    if (ifQueued) return this.get(id);
    this.d.clock.instruction(false);
    this.d.sanity.request();
    this.d.host.write(KEY_SEQUENCES['Ctrl-C']!);
    const ended = (): boolean => this.fg !== fg;
    await this.until(ended, Date.now() + ShellTimings.CTRL_C_GRACE_MS, {});
    if (!ended() && !fg.started) {
      // Bash never started it (Ctrl-C discarded the line, or readline was in another mode).
      this.d.host.releaseEcho();
      this.finish(fg, 130, this.d.log.end);
    }
    if (!ended()) {
      const shell = readProcStat(this.d.host.pid);
      if (shell && shell.tpgid > 0 && shell.tpgid !== shell.pgrp) {
        await killEscalate({ groups: [shell.tpgid] });
        await this.until(ended, Date.now() + 1000, {});
      }
    }
    return this.get(id);
  }

  /** The shell ended (by itself or killed): the foreground command ends with the shell's code. */
  onShellGone(exitCode: number | null): void {
    const fg = this.fg;
    this.atPrompt = false;
    if (fg) this.finish(fg, exitCode, this.d.log.end);
  }

  /**
   * Makes an idle shell draw a new prompt (an empty line: PROMPT_COMMAND runs, no command starts)
   * so a changed environment file is sourced before the next command. Does nothing while a
   * command runs or a partial line waits at the prompt; an `exec` meanwhile waits for the prompt.
   */
  refreshPrompt(): void {
    if (this.closed || this.fg || !this.atPrompt || this.dirtyPrompt || this.typedAhead || !this.d.host.alive) return;
    this.atPrompt = false;
    this.d.host.write('\r');
  }

  /** No more commands (guardian ending): pending waits return. */
  close(): void {
    this.closed = true;
    this.watch.stop();
    this.notify();
  }

  // ---- markers -----------------------------------------------------------------------------

  private onMarker(m: MarkerEvent): void {
    const fg = this.fg;
    if (fg) fg.verifying = (fg.verifying ?? 0) + 1;
    switch (m.kind) {
      case 'A':
        // No D came (PROMPT_COMMAND was clobbered): the command ends here, with no exit code.
        if (fg?.started && !fg.pendingEnd) fg.pendingEnd = { code: null, offset: m.offset };
        break;
      case 'B':
        this.atPrompt = true;
        this.dirtyPrompt = false;
        this.promptEnd = m.offset;
        this.d.sanity.done();
        if (fg?.pendingEnd) this.confirmEnd(fg, fg.verifying!);
        break;
      case 'C':
        this.atPrompt = false;
        if (fg && fg.typed && !fg.started) {
          fg.started = true;
          fg.rec.outputStart = m.offset;
        } else if (!fg) {
          this.typedCount += 1;
          const echo = this.d.log.read(this.promptEnd, Math.min(64 * 1024, Math.max(0, m.offset - this.promptEnd))).data;
          const rec: CommandRecord = {
            kind: 'command',
            id: `typed_${this.typedCount}`,
            command: typedLineFromEcho(echo),
            state: 'running',
            startedAt: Date.now(),
            outputStart: m.offset,
          };
          this.fg = { rec, typed: true, started: true, spillFiles: [] };
          this.watch.start();
          this.d.sanity.request(); // a person at the terminal: anything goes
        }
        break;
      case 'D':
        // A D before our C belongs to a line typed earlier (keys a program left unread, an empty
        // line): every line we type is one command and prints C first, so it is not ours. The end
        // it announces counts once the shell is seen at its prompt (B, then confirmEnd).
        if (fg?.started) {
          const code = m.arg !== null && /^\d+$/.test(m.arg) ? Number(m.arg) : null;
          fg.pendingEnd = { code, offset: m.offset };
        }
        break;
    }
    this.notify();
  }

  /**
   * Finishes the foreground command at its announced end once the kernel shows the shell itself
   * waiting at its prompt (issue 18): a program in the session can print the markers (the nonce is
   * no secret from code the shell runs), but it cannot make the terminal's foreground the shell's
   * own process group with the shell blocked reading the terminal. While a job still owns the
   * terminal (or the shell is busy), the check repeats — every marker restarts it, and the last
   * `D` before the real prompt wins. A check that succeeds is repeated after the pending PTY
   * output has been read (setImmediate runs after the poll phase), so markers already written by
   * the real prompt are never overtaken.
   */
  private confirmEnd(fg: Foreground, token: number): void {
    let pauseMs = 0;
    const since = Date.now();
    let logged = false;
    const stale = (): boolean => this.fg !== fg || fg.verifying !== token || !fg.pendingEnd || this.closed;
    const check = (confirmed: boolean): void => {
      if (stale()) return;
      const pid = this.d.host.pid;
      const evidence = shellPromptEvidence(pid, this.d.host.ptsPath);
      if (!logged && Date.now() - since > PROMPT_UNCONFIRMED_LOG_MS && evidence !== 'at_prompt') {
        logged = true;
        const st = readProcStat(pid);
        log(`end of ${fg.rec.id} announced ${Date.now() - since} ms ago is not confirmed: shell pid ${pid} ${evidence} (state ${st?.state} pgrp ${st?.pgrp} tpgid ${st?.tpgid}, syscall ${procSyscall(pid)})`);
      }
      if (evidence === 'at_prompt' || evidence === 'unknown') {
        if (!confirmed && evidence === 'at_prompt') {
          setImmediate(() => check(true));
          return;
        }
        const end = fg.pendingEnd!;
        this.finish(fg, end.code, end.offset);
        return;
      }
      pauseMs = Math.min(Date.now() - since < PROMPT_CHECK_SLOW_AFTER_MS ? PROMPT_CHECK_FAST_MAX_MS : PROMPT_CHECK_MAX_MS, Math.max(1, pauseMs * 2));
      setTimeout(() => check(false), pauseMs).unref();
    };
    check(false);
  }

  private finish(fg: Foreground, exitCode: number | null, outputEnd: number, notStarted?: CommandRecord['notStarted']): void {
    if (this.fg !== fg) return;
    this.fg = null;
    this.watch.stop();
    const rec = fg.rec;
    rec.state = 'exited';
    rec.endedAt = Date.now();
    if (exitCode !== null) rec.exitCode = exitCode;
    if (notStarted !== undefined) rec.notStarted = notStarted;
    rec.outputEnd = notStarted !== undefined ? rec.outputStart : Math.max(outputEnd, rec.outputStart);
    const lost = fg.lostAtStart === undefined ? 0 : this.d.log.lostBytes - fg.lostAtStart;
    if (lost > 0) rec.outputNotSaved = lost;
    delete rec.awaitingInput;
    delete rec.queued;
    // Where the shell is now: the daemon judges the next command's relative paths against it.
    const cwd = procLink(this.d.host.pid, 'cwd');
    if (cwd !== null) rec.cwd = cwd;
    for (const f of fg.spillFiles) rmSync(f, { force: true });
    fg.handoff?.dispose();
    this.finished.set(rec.id, rec);
    while (this.finished.size > CommandLimits.FINISHED_RECORDS_KEPT) this.finished.delete(this.finished.keys().next().value!);
    this.d.onDone(copy(rec));
    this.notify();
  }

  // ---- waiting -----------------------------------------------------------------------------

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Resolves after the next state change, at `until` (epoch ms), or on abort — whichever first. */
  private nextChange(until: number, ctx: WaitContext): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.listeners.delete(done);
        ctx.signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, until - Date.now()));
      this.listeners.add(done);
      ctx.signal?.addEventListener('abort', done, { once: true });
    });
  }

  private async until(cond: () => boolean, until: number, ctx: WaitContext): Promise<void> {
    const limit = Math.min(until, ctx.deadline ?? Infinity);
    while (!cond() && Date.now() < limit && !ctx.signal?.aborted) await this.nextChange(limit, ctx);
  }

  private async waitRecord(id: string, waitMs: number, quietMs: number, ctx: WaitContext, since = Date.now()): Promise<CommandRecord | null> {
    const start = Date.now();
    const deadline = Math.min(start + waitMs, ctx.deadline ?? Infinity);
    let nextProbeAt = 0;
    for (;;) {
      const fg = this.fg?.rec.id === id ? this.fg : null;
      if (!fg) return this.get(id);
      const now = Date.now();
      if (!fg.typed) {
        // Queued behind the shell's start-up: nothing can await input yet.
        if (now >= deadline || ctx.signal?.aborted || this.closed) return copy(fg.rec);
        await this.nextChange(deadline, ctx);
        continue;
      }
      if (now >= deadline || ctx.signal?.aborted || this.closed) return copy(fg.rec);
      const quietSince = Math.max(this.d.clock.lastPtyActivityAt, this.lastInputAt, since);
      nextProbeAt = Math.max(nextProbeAt, quietSince + quietMs);
      if (now >= nextProbeAt) {
        if (await this.awaitingInput()) {
          if (this.fg === fg && Math.max(this.d.clock.lastPtyActivityAt, this.lastInputAt) <= quietSince) {
            this.markAwaiting(fg);
            return copy(fg.rec);
          }
        }
        nextProbeAt = Date.now() + Math.max(quietMs, MIN_PROBE_INTERVAL_MS);
        continue;
      }
      await this.nextChange(Math.min(deadline, nextProbeAt), ctx);
    }
  }

  /**
   * The guardian's own check (scheduled by {@link InputWatch}): the same detection as a wait, for
   * the typed foreground command, counted only when nothing happened on the PTY meanwhile.
   * Resolves true when the command waits for input (already marked, or marked now).
   */
  private async watchCheck(): Promise<boolean> {
    const fg = this.fg;
    if (!fg || !fg.typed || this.closed) return false;
    if (fg.rec.awaitingInput) return true;
    const quietSince = Math.max(this.d.clock.lastPtyActivityAt, this.lastInputAt);
    if (!(await this.awaitingInput())) return false;
    if (this.fg !== fg || Math.max(this.d.clock.lastPtyActivityAt, this.lastInputAt) > quietSince) return false;
    this.markAwaiting(fg);
    return true;
  }

  /** Marks the foreground command as waiting for input and tells whoever listens. */
  private markAwaiting(fg: Foreground): void {
    this.d.sanity.request(); // an interactive program: it may change the terminal modes
    if (fg.rec.awaitingInput) return;
    fg.rec.awaitingInput = true;
    this.d.onAwaiting?.(copy(fg.rec));
    this.notify();
  }

  /** Input arrived or output resumed: the foreground command no longer counts as waiting. */
  private clearAwaiting(fg: Foreground): void {
    if (!fg.rec.awaitingInput) return;
    delete fg.rec.awaitingInput;
    this.d.onAwaiting?.(copy(fg.rec));
  }

  /**
   * Kernel evidence first (blocked reading the terminal); a foreground waiting in poll/select
   * (or unknown) counts when the screen shows a prompt-like cursor line or a full-screen program.
   */
  private async awaitingInput(): Promise<boolean> {
    const probe = probeForeground(this.d.host.pid, this.d.host.ptsPath);
    if (probe.readingTty) return true;
    if (!probe.polling && !probe.unknown) return false;
    const hints = await this.d.screen.inputHints();
    return hints.alternateScreen || looksLikePrompt(hints.beforeCursor);
  }
}
