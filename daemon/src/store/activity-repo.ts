import type { Db } from './db.js';

/** One row of `session_activity`: a session's current turn (issue 11); `state` is the JSON snapshot. */
export interface ActivityRow {
  session_id: string;
  turn_id: string;
  state: string;
  sequence: number;
  updated_at: number;
}

/** Repository of `session_activity`: the merged activity snapshot each session's last update produced. */
export class ActivityRepo {
  private readonly getStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], ActivityRow>('SELECT * FROM session_activity WHERE session_id = ?');
    this.putStmt = db.prepare(
      `INSERT INTO session_activity (session_id, turn_id, state, sequence, updated_at) VALUES (@session_id, @turn_id, @state, @sequence, @updated_at)
       ON CONFLICT (session_id) DO UPDATE SET turn_id = excluded.turn_id, state = excluded.state, sequence = excluded.sequence, updated_at = excluded.updated_at`,
    );
  }

  get(sessionId: string): ActivityRow | undefined {
    return this.getStmt.get(sessionId);
  }

  put(row: ActivityRow): void {
    this.putStmt.run(row);
  }
}
