import type { Db } from './db.js';

/** One row of `edit_files`: one file of an edit call, with what undo needs (issue 4). */
export interface EditFileRow {
  edit_id: string;
  seq: number;
  session_id: string;
  operation: 'create' | 'update' | 'rename' | 'undo';
  /** Workspace-relative path the edit wrote (for rename: the source). */
  path: string;
  new_path: string | null;
  /** sha256 before (null for create) and after the write. */
  before_sha: string | null;
  after_sha: string | null;
  /** gzip of the bytes before the write when ≤ FileLimits.UNDO_MAX_BYTES, else null (no undo). */
  before_blob: Buffer | null;
  /** File mode (permission bits) before the write. */
  mode: number | null;
  created_at: number;
  /** edit_id of the undo that reverted this row, if any. */
  undone_by: string | null;
}

/** Repository of `edit_files`: undo looks up a session's last edit of a path here. */
export class EditFilesRepo {
  private readonly insertStmt;
  private readonly lastStmt;
  private readonly undoneStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO edit_files (edit_id, seq, session_id, operation, path, new_path, before_sha, after_sha, before_blob, mode, created_at, undone_by)
       VALUES (@edit_id, @seq, @session_id, @operation, @path, @new_path, @before_sha, @after_sha, @before_blob, @mode, @created_at, NULL)`,
    );
    // The session's latest edit not yet undone that produced the file now at `path`: a create or
    // update of `path`, or a rename *to* `path` (undo rows themselves are not undone).
    this.lastStmt = db.prepare<[string, string, string], EditFileRow>(
      `SELECT * FROM edit_files WHERE session_id = ? AND undone_by IS NULL AND operation != 'undo'
         AND ((operation != 'rename' AND path = ?) OR (operation = 'rename' AND new_path = ?))
       ORDER BY created_at DESC, edit_id DESC, seq DESC LIMIT 1`,
    );
    this.undoneStmt = db.prepare('UPDATE edit_files SET undone_by = ? WHERE edit_id = ? AND seq = ?');
  }

  insert(row: Omit<EditFileRow, 'undone_by'>): void {
    this.insertStmt.run(row);
  }

  /** The session's most recent edit (not undone) that produced the file now at `path` (canonical relative path). */
  lastFor(sessionId: string, path: string): EditFileRow | undefined {
    return this.lastStmt.get(sessionId, path, path);
  }

  markUndone(row: Pick<EditFileRow, 'edit_id' | 'seq'>, undoEditId: string): void {
    this.undoneStmt.run(undoEditId, row.edit_id, row.seq);
  }
}
