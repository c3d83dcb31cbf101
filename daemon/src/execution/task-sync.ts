import { guardianPaths, type HomeLayout } from '@holdfast/shared/paths';
import { readJson, type CommandRecord, type ExitRecord, type TaskRecord } from '@holdfast/shared/protocol';
import type { SessionManager } from '../sessions/manager.js';
import type { TaskRow, TasksRepo } from '../store/tasks-repo.js';

/** Why a foreground command never ran, as its row says (issue 9). */
const NOT_STARTED: Record<NonNullable<CommandRecord['notStarted']>, string> = {
  stopped: 'stopped before the shell was ready: it never ran',
  cancelled: 'cancelled before it started: it never ran',
  shell_not_ready: "the session's shell never showed a prompt: the command was not run; reset it with session(action=\"reset_shell\")",
  shell_exited: "the session's shell ended before the command could be typed: it did not run",
};

/**
 * Keeps `tasks` rows in step with what guardians report (issue 5 "tasks outlive the adapter and
 * the daemon"): a finished command or task (`g.done`, or a record read by attach/status) fills in
 * exit code, signal, end time and final offsets; a session that ended while a task ran finalises
 * it from the guardian's `exit.json` (piped tasks keep their exit code; a foreground command whose
 * shell was killed becomes `interrupted`); after a daemon restart every row still `running` is
 * reconciled against its guardian.
 */
export class TaskSync {
  constructor(
    private readonly layout: HomeLayout,
    private readonly tasks: TasksRepo,
    private readonly sessions: SessionManager,
  ) {}

  /** Subscribes to the session manager's events. */
  attach(): void {
    this.sessions.onRecordDone((_sid, rec) => this.apply(rec));
    this.sessions.onSessionEnded((sid, rec) => this.finaliseSession(sid, rec));
  }

  /** Applies a guardian record to its row (unknown ids — typed commands — are ignored). Returns the updated row. */
  apply(rec: CommandRecord | TaskRecord): TaskRow | undefined {
    const row = this.tasks.get(rec.id);
    if (!row) return undefined;
    // Records can arrive out of order (a `g.done` event before the answer that started the task):
    // a finished row is never taken back by an older `running` record, and offsets only grow.
    if (rec.state === 'running' && row.state !== 'running') return row;
    const fields: Partial<TaskRow> = {};
    if (rec.kind === 'command') {
      fields.pty_start = rec.outputStart;
      if (rec.outputEnd !== undefined) fields.pty_end = rec.outputEnd;
    } else {
      fields.stdout_end = Math.max(rec.stdout.end, row.stdout_end ?? 0);
      fields.stderr_end = Math.max(rec.stderr.end, row.stderr_end ?? 0);
      if (rec.signal) fields.signal = rec.signal;
    }
    if (rec.outputNotSaved !== undefined && rec.outputNotSaved > (row.output_not_saved ?? 0)) fields.output_not_saved = rec.outputNotSaved;
    if (rec.state === 'exited' && row.state === 'running') {
      fields.state = 'exited';
      fields.ended_at = rec.endedAt ?? Date.now();
      fields.exit_code = rec.exitCode ?? null;
      if (rec.kind === 'command' && rec.notStarted !== undefined) {
        // Never typed (issue 9): stopped or cancelled while queued, or the shell never came up.
        fields.state = rec.notStarted === 'stopped' || rec.notStarted === 'cancelled' ? 'interrupted' : 'failed';
        fields.error = NOT_STARTED[rec.notStarted];
      }
    }
    this.tasks.update(rec.id, fields);
    return { ...row, ...fields };
  }

  /** Finalises the running rows of a session that ended (exit record from the event or from disk). */
  finaliseSession(sessionId: string, rec: ExitRecord | null): void {
    const exit = rec ?? readJson<ExitRecord>(guardianPaths(this.layout, sessionId).exitRecord);
    for (const row of this.tasks.listRunning()) {
      if (row.session_id === sessionId) this.finaliseRow(row, exit);
    }
  }

  /** Finalises one running row whose session is gone. */
  finaliseRow(row: TaskRow, exit: ExitRecord | null): TaskRow {
    const ended = exit?.endedAt ?? Date.now();
    const fields: Partial<TaskRow> = { ended_at: ended };
    if (row.kind === 'foreground') {
      fields.state = 'interrupted';
      fields.error = 'the session ended while the command ran';
      if (exit) fields.pty_end = exit.finalOffsets.pty;
    } else {
      const t = exit?.finalOffsets.tasks[row.id];
      if (t) {
        fields.stdout_end = t.stdout;
        fields.stderr_end = t.stderr;
      }
      if (t && t.exitCode !== null) {
        fields.state = 'exited';
        fields.exit_code = t.exitCode;
      } else {
        fields.state = 'interrupted';
        fields.error = 'the session ended while the task ran';
      }
    }
    this.tasks.update(row.id, fields);
    return { ...row, ...fields };
  }

  /**
   * After a daemon start: asks each live guardian about its rows still `running`; rows of sessions
   * that are gone are finalised from `exit.json`. Never throws.
   */
  async reconcileAll(): Promise<void> {
    for (const row of this.tasks.listRunning()) {
      try {
        const link = await this.sessions.ensureLink(row.session_id);
        this.apply(await link.wait({ id: row.id, waitMs: 0 }));
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'SESSION_EXITED' || code === 'SESSION_NOT_FOUND') this.finaliseSession(row.session_id, null);
        else if (code === 'TASK_NOT_FOUND') this.tasks.update(row.id, { state: 'interrupted', ended_at: Date.now(), error: 'the guardian no longer knows this task' });
      }
    }
  }
}
