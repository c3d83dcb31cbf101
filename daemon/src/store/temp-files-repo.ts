import type { Db } from './db.js';

/**
 * Journal of atomic-write temp files (issue 4): a row is written before a temp file is created
 * and removed after it was renamed over its target (or cleaned up). A writer killed with SIGKILL
 * cannot clean up after itself; the rows it left name the files to remove (see files/atomic-write.ts).
 */
export class TempFilesRepo {
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly allStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT OR REPLACE INTO temp_files (path, pid, created_at) VALUES (?, ?, ?)');
    this.deleteStmt = db.prepare('DELETE FROM temp_files WHERE path = ?');
    this.allStmt = db.prepare<[], { path: string; pid: number; created_at: number }>('SELECT * FROM temp_files');
  }

  begin(path: string, pid = process.pid, now = Date.now()): void {
    this.insertStmt.run(path, pid, now);
  }

  end(path: string): void {
    this.deleteStmt.run(path);
  }

  list(): { path: string; pid: number; created_at: number }[] {
    return this.allStmt.all();
  }
}
