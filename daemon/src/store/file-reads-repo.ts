import type { Db } from './db.js';

/** One row of `file_reads`: the last sha256 a session saw of one workspace file (issue 4). */
export interface FileReadRow {
  session_id: string;
  /** Workspace-relative path, `/`-separated. */
  path: string;
  sha256: string;
  read_at: number;
  /** JSON list of window keys returned at this sha (for "unchanged" references). */
  windows: string;
  /** Failed `replacements` matches in a row on this file (RECOVERY_EXHAUSTED at 3). */
  failed_matches: number;
}

/** Window keys remembered per (session, file, sha); older ones are dropped. */
const MAX_WINDOW_KEYS = 32;

/**
 * Read tracking (issue 4 "read before edit"): survives daemon restarts because it lives in SQLite.
 * A read at a new sha replaces the row (and forgets the windows seen at the old sha).
 */
export class FileReadsRepo {
  private readonly getStmt;
  private readonly upsertStmt;
  private readonly failStmt;
  private readonly resetFailStmt;
  private readonly forgetStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], FileReadRow>('SELECT * FROM file_reads WHERE session_id = ? AND path = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO file_reads (session_id, path, sha256, read_at, windows, failed_matches) VALUES (@session_id, @path, @sha256, @read_at, @windows, 0)
       ON CONFLICT (session_id, path) DO UPDATE SET sha256 = excluded.sha256, read_at = excluded.read_at, windows = excluded.windows,
         failed_matches = CASE WHEN @reset_failures = 1 THEN 0 ELSE file_reads.failed_matches END`,
    );
    this.failStmt = db.prepare(
      `INSERT INTO file_reads (session_id, path, sha256, read_at, windows, failed_matches) VALUES (?, ?, '', 0, '[]', 1)
       ON CONFLICT (session_id, path) DO UPDATE SET failed_matches = file_reads.failed_matches + 1 RETURNING failed_matches`,
    );
    this.resetFailStmt = db.prepare('UPDATE file_reads SET failed_matches = 0 WHERE session_id = ? AND path = ?');
    this.forgetStmt = db.prepare('DELETE FROM file_reads WHERE session_id = ? AND path = ?');
  }

  /** The session's last read of `path`, if any. */
  get(sessionId: string, path: string): FileReadRow | undefined {
    return this.getStmt.get(sessionId, path);
  }

  /**
   * Records that the session saw `path` at `sha256` through window `windowKey` (null: the write
   * of its own edit, which counts as a read but returns no window). A fresh read resets the
   * failed-match counter.
   * @returns true when that window had already been returned at this sha (an unchanged re-read).
   */
  recordRead(sessionId: string, path: string, sha256: string, windowKey: string | null, now = Date.now()): boolean {
    const prev = this.get(sessionId, path);
    let keys: string[] = prev && prev.sha256 === sha256 ? (JSON.parse(prev.windows) as string[]) : [];
    const seen = windowKey !== null && keys.includes(windowKey);
    if (windowKey !== null && !seen) keys = [...keys, windowKey].slice(-MAX_WINDOW_KEYS);
    this.upsertStmt.run({ session_id: sessionId, path, sha256, read_at: now, windows: JSON.stringify(keys), reset_failures: windowKey !== null ? 1 : 0 });
    return seen;
  }

  /** True when the session has read `path` at exactly `sha256`. */
  hasRead(sessionId: string, path: string, sha256: string): boolean {
    return this.get(sessionId, path)?.sha256 === sha256;
  }

  /** Counts one failed match on `path`; returns the number of failures in a row. */
  recordMatchFailure(sessionId: string, path: string): number {
    return (this.failStmt.get(sessionId, path) as { failed_matches: number }).failed_matches;
  }

  /** Clears the failed-match counter (after a successful edit). */
  resetMatchFailures(sessionId: string, path: string): void {
    this.resetFailStmt.run(sessionId, path);
  }

  /** Forgets a path (after it was renamed away or moved out). */
  forget(sessionId: string, path: string): void {
    this.forgetStmt.run(sessionId, path);
  }
}
