import type { Db } from './db.js';

/** One saved environment reading (issue 12); `data` is the JSON reading. */
export interface EnvironmentSnapshotRow {
  id: string;
  session_id: string;
  workspace: string;
  principal: string;
  label: string | null;
  created_at: number;
  data: string;
}

/** Repository of `environment_snapshots` (issue 12). */
export class EnvironmentSnapshotsRepo {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly listStmt;
  private readonly deleteEndedStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO environment_snapshots (id, session_id, workspace, principal, label, created_at, data) VALUES (@id, @session_id, @workspace, @principal, @label, @created_at, @data)');
    this.getStmt = db.prepare<[string], EnvironmentSnapshotRow>('SELECT * FROM environment_snapshots WHERE id = ?');
    this.listStmt = db.prepare<[string, number], Omit<EnvironmentSnapshotRow, 'data'>>(
      'SELECT id, session_id, workspace, principal, label, created_at FROM environment_snapshots WHERE session_id = ? ORDER BY created_at DESC LIMIT ?',
    );
    this.deleteEndedStmt = db.prepare<{ cutoff: number }>(
      "DELETE FROM environment_snapshots WHERE session_id IN (SELECT id FROM sessions WHERE state NOT IN ('starting', 'running') AND ended_at < @cutoff)",
    );
  }

  insert(row: EnvironmentSnapshotRow): void {
    this.insertStmt.run(row);
  }

  get(id: string): EnvironmentSnapshotRow | undefined {
    return this.getStmt.get(id);
  }

  /** The newest snapshots of a session (without their data). */
  list(sessionId: string, limit: number): Omit<EnvironmentSnapshotRow, 'data'>[] {
    return this.listStmt.all(sessionId, limit);
  }

  /** Removes snapshots of sessions that ended before `cutoff` (retention `event_days`). */
  deleteOfEndedSessions(cutoff: number): number {
    return this.deleteEndedStmt.run({ cutoff }).changes;
  }
}
