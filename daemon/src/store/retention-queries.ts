import type { Db } from './db.js';

/** What an open (undelivered) plan cites as evidence is kept (issue 11). */
const CITED = "SELECT e.ref_id FROM plan_evidence e JOIN plans p ON p.id = e.plan_id WHERE p.state = 'open' AND e.ref_id IS NOT NULL";
const LIVE = "SELECT id FROM sessions WHERE state IN ('starting', 'running')";

/** One finished task retention may remove. */
export interface ExpiredTask {
  id: string;
  session_id: string;
  kind: string;
}

/**
 * The cross-table queries of retention (issue 5 tasks, issue 11 the other clocks): which rows are
 * old enough and not held back — running tasks, what an undelivered plan cites, artifacts and
 * events of live sessions. Counting and selecting share the same conditions, so `holdfast doctor`
 * says exactly what the next sweep removes.
 */
export class RetentionQueries {
  private readonly tasksExpired;
  private readonly tasksCount;
  private readonly artifactsExpired;
  private readonly artifactsCount;
  private readonly plansExpired;
  private readonly plansCount;
  private readonly endedSessions;
  private readonly sessionCited;
  private readonly receiptsCount;
  private readonly receiptsDelete;
  private readonly progressDelete;
  private readonly activityDelete;

  constructor(db: Db) {
    const taskWhere = `created_at < @cutoff AND state != 'running' AND id NOT IN (${CITED})`;
    this.tasksExpired = db.prepare<{ cutoff: number; limit: number }, ExpiredTask>(`SELECT id, session_id, kind FROM tasks WHERE ${taskWhere} ORDER BY created_at LIMIT @limit`);
    this.tasksCount = db.prepare<{ cutoff: number }, { n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE ${taskWhere}`);
    const artifactWhere = `created_at < @cutoff AND session_id NOT IN (${LIVE}) AND id NOT IN (${CITED})`;
    this.artifactsExpired = db.prepare<{ cutoff: number; limit: number }, { id: string; session_id: string; byte_length: number }>(
      `SELECT id, session_id, byte_length FROM artifacts WHERE ${artifactWhere} ORDER BY created_at LIMIT @limit`,
    );
    this.artifactsCount = db.prepare<{ cutoff: number }, { n: number; bytes: number | null }>(`SELECT COUNT(*) AS n, SUM(byte_length) AS bytes FROM artifacts WHERE ${artifactWhere}`);
    const planWhere = `updated_at < @cutoff AND (state = 'delivered' OR session_id NOT IN (${LIVE}))`;
    this.plansExpired = db.prepare<{ cutoff: number; limit: number }, { id: string }>(`SELECT id FROM plans WHERE ${planWhere} ORDER BY updated_at LIMIT @limit`);
    this.plansCount = db.prepare<{ cutoff: number }, { n: number }>(`SELECT COUNT(*) AS n FROM plans WHERE ${planWhere}`);
    this.endedSessions = db.prepare<{ cutoff: number }, { id: string }>("SELECT id FROM sessions WHERE state NOT IN ('starting', 'running') AND ended_at IS NOT NULL AND ended_at < @cutoff");
    this.sessionCited = db.prepare<{ session: string }, { n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE session_id = @session AND id IN (${CITED})`);
    this.receiptsCount = db.prepare<{ cutoff: number }, { n: number }>('SELECT COUNT(*) AS n FROM idempotency_receipts WHERE created_at < @cutoff');
    this.receiptsDelete = db.prepare<{ cutoff: number }>('DELETE FROM idempotency_receipts WHERE created_at < @cutoff');
    this.progressDelete = db.prepare<{ cutoff: number }>(`DELETE FROM progress_reports WHERE session_id IN (SELECT id FROM sessions WHERE state NOT IN ('starting', 'running') AND ended_at < @cutoff)`);
    this.activityDelete = db.prepare<{ cutoff: number }>(`DELETE FROM session_activity WHERE session_id IN (SELECT id FROM sessions WHERE state NOT IN ('starting', 'running') AND ended_at < @cutoff)`);
  }

  /** Finished tasks created before `cutoff` that no open plan cites, oldest first. */
  expiredTasks(cutoff: number, limit = 500): ExpiredTask[] {
    return this.tasksExpired.all({ cutoff, limit });
  }

  countExpiredTasks(cutoff: number): number {
    return this.tasksCount.get({ cutoff })?.n ?? 0;
  }

  /** Artifacts created before `cutoff` of sessions that are no longer live, not cited by an open plan. */
  expiredArtifacts(cutoff: number, limit = 500): { id: string; session_id: string; byte_length: number }[] {
    return this.artifactsExpired.all({ cutoff, limit });
  }

  countExpiredArtifacts(cutoff: number): { artifacts: number; bytes: number } {
    const r = this.artifactsCount.get({ cutoff });
    return { artifacts: r?.n ?? 0, bytes: r?.bytes ?? 0 };
  }

  /** Plans last changed before `cutoff` that are delivered or whose session is no longer live. */
  expiredPlans(cutoff: number, limit = 500): string[] {
    return this.plansExpired.all({ cutoff, limit }).map((r) => r.id);
  }

  countExpiredPlans(cutoff: number): number {
    return this.plansCount.get({ cutoff })?.n ?? 0;
  }

  /** Sessions that ended before `cutoff` (their folders go with task retention). */
  sessionsEndedBefore(cutoff: number): string[] {
    return this.endedSessions.all({ cutoff }).map((r) => r.id);
  }

  /** True when an open plan cites one of the session's tasks (its logs are kept). */
  sessionHasCitedTasks(sessionId: string): boolean {
    return (this.sessionCited.get({ session: sessionId })?.n ?? 0) > 0;
  }

  countExpiredReceipts(cutoff: number): number {
    return this.receiptsCount.get({ cutoff })?.n ?? 0;
  }

  deleteExpiredReceipts(cutoff: number): number {
    return this.receiptsDelete.run({ cutoff }).changes;
  }

  /** Removes progress reports and activity snapshots of sessions that ended before `cutoff`. */
  deleteEndedSessionState(cutoff: number): number {
    return this.progressDelete.run({ cutoff }).changes + this.activityDelete.run({ cutoff }).changes;
  }
}
