import type { Db } from './db.js';

/**
 * Who has read a file: a session and, inside it, one conversation (issue 8). `reader` is the
 * caller's conversation id (`CallContext.conversation_id`: its `Mcp-Session-Id`, its
 * `X-Holdfast-Conversation-Id` header, or its stdio connection), or `''` when the client names none
 * — then every such caller of the session shares one record, as before issue 8.
 */
export interface ReadScope {
  sessionId: string;
  reader: string;
}

/** One row of `file_reads`: the last sha256 a reader saw of one workspace file (issue 4, per conversation since issue 8). */
export interface FileReadRow {
  session_id: string;
  reader: string;
  /** Workspace-relative path, `/`-separated. */
  path: string;
  sha256: string;
  read_at: number;
  /** JSON list of window keys returned at this sha (for "unchanged" references). */
  windows: string;
  /** Failed `replacements` matches in a row on this file (RECOVERY_EXHAUSTED at 3). */
  failed_matches: number;
}

/** Read records kept in memory at most (the cache starts over when full). */
const CACHE_MAX_ROWS = 10_000;

/** Window keys remembered per (reader, file, sha); older ones are dropped. */
const MAX_WINDOW_KEYS = 32;

/**
 * Read tracking (issue 4 "read before edit", issue 8 per conversation): survives daemon restarts
 * because it lives in SQLite. A read at a new sha replaces the row (and forgets the windows seen at
 * the old sha). What one conversation read says nothing about another conversation of the same
 * session: each gets its own "unchanged since you read it" answers and its own read-before-edit.
 */
export class FileReadsRepo {
  /**
   * Rows read outside a transaction, by `session\0reader\0path` (null: known to have none), kept
   * until a write to that key (issue 10: every read and every edit looked its row up again). All
   * writes to `file_reads` go through this class.
   */
  private readonly cache = new Map<string, FileReadRow | null>();
  private readonly getStmt;
  private readonly upsertStmt;
  private readonly failStmt;
  private readonly resetFailStmt;
  private readonly forgetStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare<[string, string, string], FileReadRow>('SELECT * FROM file_reads WHERE session_id = ? AND reader = ? AND path = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO file_reads (session_id, reader, path, sha256, read_at, windows, failed_matches) VALUES (@session_id, @reader, @path, @sha256, @read_at, @windows, 0)
       ON CONFLICT (session_id, reader, path) DO UPDATE SET sha256 = excluded.sha256, read_at = excluded.read_at, windows = excluded.windows,
         failed_matches = CASE WHEN @reset_failures = 1 THEN 0 ELSE file_reads.failed_matches END`,
    );
    this.failStmt = db.prepare(
      `INSERT INTO file_reads (session_id, reader, path, sha256, read_at, windows, failed_matches) VALUES (?, ?, ?, '', 0, '[]', 1)
       ON CONFLICT (session_id, reader, path) DO UPDATE SET failed_matches = file_reads.failed_matches + 1 RETURNING failed_matches`,
    );
    this.resetFailStmt = db.prepare('UPDATE file_reads SET failed_matches = 0 WHERE session_id = ? AND reader = ? AND path = ?');
    this.forgetStmt = db.prepare('DELETE FROM file_reads WHERE session_id = ? AND path = ?');
  }

  /** The reader's last read of `path`, if any. */
  get(scope: ReadScope, path: string): FileReadRow | undefined {
    const key = `${scope.sessionId}\0${scope.reader}\0${path}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit === null ? undefined : { ...hit };
    const row = this.getStmt.get(scope.sessionId, scope.reader, path);
    // Inside a transaction a row may be uncommitted: never remember what a rollback could undo.
    if (!this.db.inTransaction) {
      if (this.cache.size >= CACHE_MAX_ROWS) this.cache.clear();
      this.cache.set(key, row === undefined ? null : { ...row });
    }
    return row;
  }

  private dropCached(scope: ReadScope, path: string): void {
    this.cache.delete(`${scope.sessionId}\0${scope.reader}\0${path}`);
  }

  /**
   * Records that the reader saw `path` at `sha256` through window `windowKey` (null: the write
   * of its own edit, which counts as a read but returns no window). A fresh read resets the
   * failed-match counter.
   * @returns true when that window had already been returned to this reader at this sha (an unchanged re-read).
   */
  recordRead(scope: ReadScope, path: string, sha256: string, windowKey: string | null, now = Date.now()): boolean {
    const prev = this.get(scope, path);
    let keys: string[] = prev && prev.sha256 === sha256 ? (JSON.parse(prev.windows) as string[]) : [];
    const seen = windowKey !== null && keys.includes(windowKey);
    if (windowKey !== null && !seen) keys = [...keys, windowKey].slice(-MAX_WINDOW_KEYS);
    // An unchanged re-read (same sha, a window already returned, no failures to reset) writes
    // nothing (issue 10): the row already says all read-before-edit needs; only `read_at` would
    // move, and nothing reads it.
    if (seen && prev !== undefined && prev.failed_matches === 0) return seen;
    this.dropCached(scope, path);
    this.upsertStmt.run({ session_id: scope.sessionId, reader: scope.reader, path, sha256, read_at: now, windows: JSON.stringify(keys), reset_failures: windowKey !== null ? 1 : 0 });
    return seen;
  }

  /** True when the reader has read `path` at exactly `sha256`. */
  hasRead(scope: ReadScope, path: string, sha256: string): boolean {
    return this.get(scope, path)?.sha256 === sha256;
  }

  /** Counts one failed match of the reader on `path`; returns the number of failures in a row. */
  recordMatchFailure(scope: ReadScope, path: string): number {
    this.dropCached(scope, path);
    return (this.failStmt.get(scope.sessionId, scope.reader, path) as { failed_matches: number }).failed_matches;
  }

  /** Clears the reader's failed-match counter (after a successful edit). */
  resetMatchFailures(scope: ReadScope, path: string): void {
    this.dropCached(scope, path);
    this.resetFailStmt.run(scope.sessionId, scope.reader, path);
  }

  /** Forgets a path for every reader of the session (after it was renamed away or moved out). */
  forget(sessionId: string, path: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${sessionId}\0`) && key.endsWith(`\0${path}`)) this.cache.delete(key);
    this.forgetStmt.run(sessionId, path);
  }
}
