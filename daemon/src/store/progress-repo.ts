import type { Db } from './db.js';

/** One row of `progress_reports` (issue 11); `result` is a JSON array of strings. */
export interface ProgressRow {
  id: number;
  session_id: string;
  status: string;
  current: string;
  result: string | null;
  at: number;
}

/** Repository of `progress_reports`: every recorded report of a session; the newest is its state. */
export class ProgressRepo {
  private readonly latestStmt;
  private readonly insertStmt;
  private readonly count;

  constructor(db: Db) {
    this.latestStmt = db.prepare<[string], ProgressRow>('SELECT * FROM progress_reports WHERE session_id = ? ORDER BY id DESC LIMIT 1');
    this.insertStmt = db.prepare('INSERT INTO progress_reports (session_id, status, current, result, at) VALUES (@session_id, @status, @current, @result, @at)');
    this.count = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM progress_reports');
  }

  /** The newest report of a session, if any. */
  latest(sessionId: string): ProgressRow | undefined {
    return this.latestStmt.get(sessionId);
  }

  /** Records a report; returns its row. */
  insert(row: Omit<ProgressRow, 'id'>): ProgressRow {
    const r = this.insertStmt.run(row);
    return { ...row, id: Number(r.lastInsertRowid) };
  }

  total(): number {
    return this.count.get()?.n ?? 0;
  }
}
