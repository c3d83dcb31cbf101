import type { Db } from './db.js';

/** One row of `edits`: one `edit` call (edit_id `ed_…`) and its full diff (issue 4). */
export interface EditRow {
  id: string;
  session_id: string;
  purpose: string | null;
  created_at: number;
  /** Files the call touched. */
  files: number;
  /** Unified diff of the whole call (LF-normalised text), capped at FileLimits.DIFF_STORE_MAX_BYTES. */
  diff: string;
  diff_lines: number;
}

/** Repository of `edits`: written once per successful edit call, read by observe(view="diff"). */
export class EditsRepo {
  private readonly insertStmt;
  private readonly getStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO edits (id, session_id, purpose, created_at, files, diff, diff_lines) VALUES (@id, @session_id, @purpose, @created_at, @files, @diff, @diff_lines)');
    this.getStmt = db.prepare<[string], EditRow>('SELECT * FROM edits WHERE id = ?');
  }

  insert(row: EditRow): void {
    this.insertStmt.run(row);
  }

  get(id: string): EditRow | undefined {
    return this.getStmt.get(id);
  }
}
