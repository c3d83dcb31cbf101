import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HoldfastError, SegmentLog, type SpawnParams, type TaskRecord } from '@holdfast/shared/protocol';
import type { Clock } from './clock.js';
import { TaskLimits } from './constants.js';
import { log } from './log.js';
import { killEscalate } from './process-killer.js';
import { findProgram, type Launch } from './sandbox-launch.js';
import { NO_PATTERNS, StreamRedactor, type PatternSet } from './secrets/redactor.js';

/**
 * Background tasks (DESIGN §5): each its own process group and session (`detached: true`), stdin
 * ignored, stdout and stderr piped into SegmentLogs at `sessionDir/tasks/<id>/stdout|stderr`
 * (8 MiB × 4 segments retained per stream). `argv` runs exactly as given (no shell, no
 * re-splitting); `command` runs through `bash -c`.
 *
 * A task is `exited` when its leader process exited and its pipes closed (or
 * {@link TaskLimits.PIPE_CLOSE_GRACE_MS} after the exit when a grandchild keeps them open; later
 * bytes are still logged). The exit is recorded in memory and reported through `onDone` whether
 * or not a daemon is connected. The last {@link TaskLimits.FINISHED_TASKS_KEPT} finished tasks are
 * kept.
 */
export interface TaskRunnerDeps {
  sessionDir: string;
  /** Default working directory (the workspace root). */
  cwd: string;
  /** Base environment (guardian env + spec env + PAGER settings). */
  env: Record<string, string>;
  clock: Clock;
  /** Called once per finished task (for the `g.done` event). */
  onDone: (rec: TaskRecord) => void;
  /** Called after bytes were appended to a task stream (readers wake up). */
  onOutput: (id: string) => void;
  /** Runs a task inside the session's sandbox (issue 17, sandbox-launch.ts); absent = as is. */
  wrap?: (file: string, args: string[], cwd: string) => Launch;
  /** Secret values to redact from both streams before they are logged (issue 12). */
  redaction?: () => PatternSet;
  /**
   * Values of held secrets for `secrets` on `g.spawn` (issue 12).
   * @throws HoldfastError SECRET_NOT_FOUND.
   */
  secretEnv?: (names: readonly string[]) => Record<string, string>;
}

interface Task {
  rec: TaskRecord;
  child: ChildProcess | null;
  stdout: SegmentLog;
  stderr: SegmentLog;
  exited: Promise<void>;
}

const TASK_ID_RE = /^[A-Za-z0-9_]+$/;
const copy = (t: Task): TaskRecord => ({ ...t.rec, stdout: { start: t.stdout.start, end: t.stdout.end }, stderr: { start: t.stderr.start, end: t.stderr.end } });

export class TaskRunner {
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly d: TaskRunnerDeps) {}

  /**
   * Starts a task.
   * @throws HoldfastError `BAD_REQUEST` for an id in use or not matching `[A-Za-z0-9_]+`;
   *   `SPAWN_FAILED` when the program cannot be started (not found, not executable, bad cwd).
   */
  spawn(p: SpawnParams): TaskRecord {
    if (!TASK_ID_RE.test(p.id)) throw new HoldfastError('BAD_REQUEST', `task id ${JSON.stringify(p.id)} must match [A-Za-z0-9_]+`);
    if (this.tasks.has(p.id) || existsSync(join(this.d.sessionDir, 'tasks', p.id))) {
      throw new HoldfastError('BAD_REQUEST', `task id ${p.id} is already used in this session; pick a new id`);
    }
    this.d.clock.instruction(true);
    const argv = p.argv ?? ['bash', '-c', p.command!];
    const cwd = p.cwd ?? this.d.cwd;
    const dir = join(this.d.sessionDir, 'tasks', p.id);
    const secrets = p.secrets && p.secrets.length > 0 ? this.d.secretEnv?.(p.secrets) : undefined;
    if (p.secrets && p.secrets.length > 0 && !secrets) throw new HoldfastError('BAD_REQUEST', 'this guardian holds no secrets');
    const env = { ...this.d.env, ...(p.env ?? {}), ...(secrets ?? {}) };
    let child: ChildProcess;
    // In a sandbox the wrapper always starts: check the program and folder first, as spawn would.
    if (this.d.wrap && (!existsSync(cwd) || findProgram(argv[0]!, env.PATH, cwd) === null)) {
      throw new HoldfastError('SPAWN_FAILED', `cannot start ${argv[0]} in ${cwd}: the program or the directory does not exist or is not executable`, { details: { argv, cwd } });
    }
    const run = this.d.wrap ? this.d.wrap(argv[0]!, argv.slice(1), cwd) : { file: argv[0]!, args: argv.slice(1) };
    try {
      child = spawn(run.file, run.args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      throw new HoldfastError('SPAWN_FAILED', `cannot start ${argv[0]}: ${(err as Error).message}`, { details: { argv } });
    }
    if (child.pid === undefined) {
      child.once('error', () => undefined);
      // The failure is known synchronously (pid undefined); its error event follows on next tick.
      throw new HoldfastError('SPAWN_FAILED', `cannot start ${argv[0]} in ${cwd}: the program or the directory does not exist or is not executable`, {
        details: { argv, cwd },
      });
    }
    const writeError = (err: NodeJS.ErrnoException): void => log(`task ${p.id}: cannot write its output log (${err.code ?? err.message}); output is dropped until space is back`);
    const stdout = new SegmentLog(join(dir, 'stdout'), TaskLimits.TASK_LOG_SEGMENT_BYTES, TaskLimits.TASK_LOG_SEGMENTS, writeError);
    const stderr = new SegmentLog(join(dir, 'stderr'), TaskLimits.TASK_LOG_SEGMENT_BYTES, TaskLimits.TASK_LOG_SEGMENTS, writeError);
    const rec: TaskRecord = {
      kind: 'task',
      id: p.id,
      argv,
      cwd,
      pid: child.pid,
      pgid: child.pid,
      state: 'running',
      startedAt: Date.now(),
      stdout: { start: 0, end: 0 },
      stderr: { start: 0, end: 0 },
    };
    if (p.command !== undefined) rec.command = p.command;
    let markExited!: () => void;
    const task: Task = { rec, child, stdout, stderr, exited: new Promise<void>((r) => (markExited = r)) };
    this.tasks.set(p.id, task);
    log(`task ${p.id} pid ${child.pid} started: ${JSON.stringify(argv)}`);

    // Secret values are replaced before a byte reaches the log, also when split across chunks.
    const patterns = this.d.redaction ?? (() => NO_PATTERNS);
    for (const [pipe, logTo] of [[child.stdout!, stdout], [child.stderr!, stderr]] as const) {
      const redactor = new StreamRedactor(patterns);
      pipe.on('data', (b: Buffer) => {
        logTo.append(redactor.push(b));
        this.d.onOutput(p.id);
      });
      pipe.on('end', () => {
        logTo.append(redactor.flush());
        this.d.onOutput(p.id);
      });
    }
    child.on('error', (err) => log(`task ${p.id}: ${err.message}`));
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let finished = false;
    const finish = (): void => {
      if (finished || !exitInfo) return;
      finished = true;
      rec.state = 'exited';
      rec.endedAt = Date.now();
      rec.exitCode = exitInfo.code;
      rec.signal = exitInfo.signal;
      const lost = stdout.lostBytes + stderr.lostBytes;
      if (lost > 0) rec.outputNotSaved = lost;
      task.child = null;
      log(`task ${p.id} exited code ${exitInfo.code} signal ${exitInfo.signal}`);
      this.trim();
      markExited();
      this.d.onDone(copy(task));
      this.d.onOutput(p.id);
    };
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal };
      setTimeout(finish, TaskLimits.PIPE_CLOSE_GRACE_MS).unref();
    });
    child.on('close', () => finish());
    child.unref();
    return copy(task);
  }

  /** A task record by id, or null. */
  get(id: string): TaskRecord | null {
    const t = this.tasks.get(id);
    return t ? copy(t) : null;
  }

  /** Every task kept in memory, oldest first. */
  list(): TaskRecord[] {
    return [...this.tasks.values()].map(copy);
  }

  /** Some task is running. */
  get anyRunning(): boolean {
    for (const t of this.tasks.values()) if (t.rec.state === 'running') return true;
    return false;
  }

  /** The log of one stream of a task kept in memory, or null. */
  stream(id: string, which: 'stdout' | 'stderr'): SegmentLog | null {
    const t = this.tasks.get(id);
    return t ? t[which] : null;
  }

  /** Exit state of a task (`exited`, `exit_code`) for readers, or null when unknown. */
  exitState(id: string): { exited: boolean; exitCode: number | null } | null {
    const t = this.tasks.get(id);
    return t ? { exited: t.rec.state === 'exited', exitCode: t.rec.exitCode ?? null } : null;
  }

  /** Resolves when the task is exited, or at `ms`. */
  async waitExit(id: string, ms: number, signal?: AbortSignal): Promise<TaskRecord | null> {
    const t = this.tasks.get(id);
    if (!t) return null;
    if (t.rec.state !== 'exited' && ms > 0) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        void t.exited.then(done);
      });
    }
    return copy(t);
  }

  /**
   * `g.stop`: kill escalation of the task's whole process group and session (also when the
   * leader already exited and something is left in its group). Null when the id is unknown.
   */
  async stop(id: string): Promise<TaskRecord | null> {
    const t = this.tasks.get(id);
    if (!t) return null;
    this.d.clock.instruction(false);
    await killEscalate({ groups: [t.rec.pgid], sessions: [t.rec.pgid] });
    return this.waitExit(id, 2000);
  }

  /** Process groups of every task (for the final kill escalation). */
  allGroups(): number[] {
    return [...this.tasks.values()].map((t) => t.rec.pgid);
  }

  /** Waits (bounded) for every running task's exit to be recorded. */
  async settle(ms: number): Promise<void> {
    const running = [...this.tasks.values()].filter((t) => t.rec.state === 'running');
    await Promise.race([Promise.all(running.map((t) => t.exited)), new Promise((r) => setTimeout(r, ms).unref())]);
  }

  /** Closes every log file. */
  closeLogs(): void {
    for (const t of this.tasks.values()) {
      t.stdout.close();
      t.stderr.close();
    }
  }

  private trim(): void {
    let finished = 0;
    for (const t of this.tasks.values()) if (t.rec.state === 'exited') finished++;
    for (const [id, t] of this.tasks) {
      if (finished <= TaskLimits.FINISHED_TASKS_KEPT) break;
      if (t.rec.state !== 'exited') continue;
      t.stdout.close();
      t.stderr.close();
      this.tasks.delete(id);
      finished--;
    }
  }
}
