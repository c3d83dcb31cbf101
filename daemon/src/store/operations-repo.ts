import type { Db } from './db.js';

/** Operation states (issue 12); the last four are terminal and never change again. */
export const OPERATION_STATES = ['running', 'waiting_confirmation', 'succeeded', 'completed_with_issues', 'cancelled', 'interrupted'] as const;
export type OperationState = (typeof OPERATION_STATES)[number];
export const TERMINAL_OPERATION_STATES: ReadonlySet<OperationState> = new Set<OperationState>(['succeeded', 'completed_with_issues', 'cancelled', 'interrupted']);

/** Step states (issue 12); the last five are terminal. */
export const STEP_STATES = ['pending', 'running', 'waiting_confirmation', 'succeeded', 'failed', 'skipped', 'cancelled', 'interrupted'] as const;
export type StepState = (typeof STEP_STATES)[number];
export const TERMINAL_STEP_STATES: ReadonlySet<StepState> = new Set<StepState>(['succeeded', 'failed', 'skipped', 'cancelled', 'interrupted']);

/** One row of `operations`. */
export interface OperationRow {
  id: string;
  session_id: string;
  workspace: string;
  principal: string;
  run_id: string | null;
  steps_sha256: string;
  state: OperationState;
  state_sequence: number;
  terminal_event_id: number | null;
  call_context: string | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
  results_expired_at: number | null;
}

/** One row of `operation_steps`. */
export interface StepRow {
  operation_id: string;
  step_id: string;
  position: number;
  tool: string;
  arguments: string;
  depends_on: string;
  state: StepState;
  state_sequence: number;
  idempotency_key: string | null;
  execution_task_id: string | null;
  started_at: number | null;
  ended_at: number | null;
  result: string | null;
  error: string | null;
}

/** Step fields a change may set. */
export type StepChange = Partial<Pick<StepRow, 'state' | 'execution_task_id' | 'started_at' | 'ended_at' | 'result' | 'error'>>;

/**
 * Repository of `operations` and `operation_steps` (issue 12). Every change goes through one
 * transaction that bumps the operation's `state_sequence` and stamps it on the changed step (or
 * the operation), so a reader can tell exactly what moved since it last looked. A terminal
 * operation is never changed again: {@link finish} sets the state, `ended_at` and the
 * `terminal_event_id` at once, only from a non-terminal state.
 */
export class OperationsRepo {
  private readonly insertOp;
  private readonly insertStep;
  private readonly getOp;
  private readonly getSteps;
  private readonly bump;
  private readonly updateStepStmt;
  private readonly setStateStmt;
  private readonly finishStmt;
  private readonly unfinishedStmt;
  private readonly expiredStmt;
  private readonly expireStmt;
  private readonly deleteStepsStmt;
  private readonly countExpiredStmt;
  private readonly deleteTombstonesStmt;

  constructor(private readonly db: Db) {
    this.insertOp = db.prepare(
      `INSERT INTO operations (id, session_id, workspace, principal, run_id, steps_sha256, state, state_sequence, terminal_event_id, call_context, created_at, updated_at, ended_at, results_expired_at)
       VALUES (@id, @session_id, @workspace, @principal, @run_id, @steps_sha256, @state, @state_sequence, NULL, @call_context, @created_at, @updated_at, NULL, NULL)`,
    );
    this.insertStep = db.prepare(
      `INSERT INTO operation_steps (operation_id, step_id, position, tool, arguments, depends_on, state, state_sequence, idempotency_key, execution_task_id, started_at, ended_at, result, error)
       VALUES (@operation_id, @step_id, @position, @tool, @arguments, @depends_on, @state, @state_sequence, @idempotency_key, NULL, NULL, NULL, NULL, NULL)`,
    );
    this.getOp = db.prepare<[string], OperationRow>('SELECT * FROM operations WHERE id = ?');
    this.getSteps = db.prepare<[string], StepRow>('SELECT * FROM operation_steps WHERE operation_id = ? ORDER BY position');
    this.bump = db.prepare<[number, string], { state_sequence: number }>('UPDATE operations SET state_sequence = state_sequence + 1, updated_at = ? WHERE id = ? RETURNING state_sequence');
    this.updateStepStmt = db.prepare(
      `UPDATE operation_steps SET state = COALESCE(@state, state), execution_task_id = COALESCE(@execution_task_id, execution_task_id), started_at = COALESCE(@started_at, started_at),
         ended_at = COALESCE(@ended_at, ended_at), result = COALESCE(@result, result), error = COALESCE(@error, error), state_sequence = @seq
       WHERE operation_id = @operation_id AND step_id = @step_id`,
    );
    this.setStateStmt = db.prepare<[string, string, string]>("UPDATE operations SET state = ? WHERE id = ? AND state IN ('running', 'waiting_confirmation') AND state != ?");
    this.finishStmt = db.prepare<[string, number, number, string]>("UPDATE operations SET state = ?, ended_at = ?, terminal_event_id = ? WHERE id = ? AND state IN ('running', 'waiting_confirmation')");
    this.unfinishedStmt = db.prepare<[], OperationRow>("SELECT * FROM operations WHERE state IN ('running', 'waiting_confirmation') ORDER BY created_at");
    const expiredWhere = "ended_at IS NOT NULL AND ended_at < @cutoff AND results_expired_at IS NULL AND state NOT IN ('running', 'waiting_confirmation')";
    this.expiredStmt = db.prepare<{ cutoff: number; limit: number }, { id: string }>(`SELECT id FROM operations WHERE ${expiredWhere} ORDER BY ended_at LIMIT @limit`);
    this.countExpiredStmt = db.prepare<{ cutoff: number }, { n: number }>(`SELECT COUNT(*) AS n FROM operations WHERE ${expiredWhere}`);
    this.expireStmt = db.prepare<[number, string]>('UPDATE operations SET results_expired_at = ?, call_context = NULL WHERE id = ?');
    this.deleteStepsStmt = db.prepare<[string]>('DELETE FROM operation_steps WHERE operation_id = ?');
    this.deleteTombstonesStmt = db.prepare<{ cutoff: number }>(
      "DELETE FROM operations WHERE results_expired_at IS NOT NULL AND session_id IN (SELECT id FROM sessions WHERE state NOT IN ('starting', 'running') AND ended_at < @cutoff)",
    );
  }

  /** Stores a new operation and its steps in one transaction (before the batch is acknowledged). */
  insert(op: Omit<OperationRow, 'terminal_event_id' | 'ended_at' | 'results_expired_at'>, steps: Omit<StepRow, 'execution_task_id' | 'started_at' | 'ended_at' | 'result' | 'error'>[]): void {
    this.db.transaction(() => {
      this.insertOp.run(op);
      for (const s of steps) this.insertStep.run(s);
    })();
  }

  get(id: string): OperationRow | undefined {
    return this.getOp.get(id);
  }

  steps(id: string): StepRow[] {
    return this.getSteps.all(id);
  }

  /** Changes one step; returns the operation's new `state_sequence` (stamped on the step). */
  updateStep(operationId: string, stepId: string, change: StepChange, now = Date.now()): number {
    return this.db.transaction(() => {
      const seq = this.bump.get(now, operationId)!.state_sequence;
      this.updateStepStmt.run({
        operation_id: operationId,
        step_id: stepId,
        seq,
        state: change.state ?? null,
        execution_task_id: change.execution_task_id ?? null,
        started_at: change.started_at ?? null,
        ended_at: change.ended_at ?? null,
        result: change.result ?? null,
        error: change.error ?? null,
      });
      return seq;
    })();
  }

  /** Moves a non-terminal operation between `running` and `waiting_confirmation`; returns the new sequence, or null when nothing changed (already in that state, or terminal). */
  setState(id: string, state: 'running' | 'waiting_confirmation', now = Date.now()): number | null {
    return this.db.transaction(() => {
      if (this.setStateStmt.run(state, id, state).changes === 0) return null;
      return this.bump.get(now, id)!.state_sequence;
    })();
  }

  /**
   * Ends an operation: terminal state, end time and the event that records it, in one transaction
   * with `recordEvent` (which appends the event and returns its sequence). False (and no event)
   * when it was terminal already.
   */
  finish(id: string, state: OperationState, recordEvent: (seq: number) => number, now = Date.now()): boolean {
    return this.db.transaction(() => {
      const op = this.getOp.get(id);
      if (!op || TERMINAL_OPERATION_STATES.has(op.state)) return false;
      const seq = this.bump.get(now, id)!.state_sequence;
      const eventId = recordEvent(seq);
      this.finishStmt.run(state, now, eventId, id);
      return true;
    })();
  }

  /** Operations not yet terminal (daemon start: recovery). */
  unfinished(): OperationRow[] {
    return this.unfinishedStmt.all();
  }

  countExpired(cutoff: number): number {
    return this.countExpiredStmt.get({ cutoff })?.n ?? 0;
  }

  /** Drops the step results of operations that ended before `cutoff`, keeping a tombstone; returns how many. */
  expireResults(cutoff: number, now = Date.now()): number {
    let n = 0;
    for (let ids = this.expiredStmt.all({ cutoff, limit: 500 }); ids.length > 0; ids = this.expiredStmt.all({ cutoff, limit: 500 })) {
      this.db.transaction(() => {
        for (const { id } of ids) {
          this.deleteStepsStmt.run(id);
          this.expireStmt.run(now, id);
        }
      })();
      n += ids.length;
    }
    return n;
  }

  /** Removes tombstones of sessions that ended before `cutoff` (with the sessions' other state). */
  deleteTombstones(cutoff: number): number {
    return this.deleteTombstonesStmt.run({ cutoff }).changes;
  }
}
