import type { Db } from './db.js';

/** One row of `artifacts` (issue 11). The bytes are in `state/artifacts/<session_id>/<id>`. */
export interface ArtifactRow {
  id: string;
  session_id: string;
  workspace: string;
  title: string;
  kind: string;
  source_path: string | null;
  mime_type: string;
  byte_length: number;
  sha256: string;
  source_encoding: string;
  /** 1 when the source starts with a byte-order mark. */
  source_bom: number;
  created_at: number;
}

/** Repository of `artifacts`. */
export class ArtifactsRepo {
  private readonly byId;
  private readonly insertStmt;
  private readonly bySession;
  private readonly deleteStmt;
  private readonly totals;
  private readonly ids;

  constructor(db: Db) {
    this.byId = db.prepare<[string], ArtifactRow>('SELECT * FROM artifacts WHERE id = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO artifacts (id, session_id, workspace, title, kind, source_path, mime_type, byte_length, sha256, source_encoding, source_bom, created_at)
       VALUES (@id, @session_id, @workspace, @title, @kind, @source_path, @mime_type, @byte_length, @sha256, @source_encoding, @source_bom, @created_at)`,
    );
    this.bySession = db.prepare<[string, number], ArtifactRow>('SELECT * FROM artifacts WHERE session_id = ? ORDER BY created_at DESC, id DESC LIMIT ?');
    this.deleteStmt = db.prepare('DELETE FROM artifacts WHERE id = ?');
    this.totals = db.prepare<[], { n: number; bytes: number | null }>('SELECT COUNT(*) AS n, SUM(byte_length) AS bytes FROM artifacts');
    this.ids = db.prepare<[string], { id: string }>('SELECT id FROM artifacts WHERE session_id = ?');
  }

  get(id: string): ArtifactRow | undefined {
    return this.byId.get(id);
  }

  insert(row: ArtifactRow): void {
    this.insertStmt.run(row);
  }

  /** The newest `limit` artifacts of a session, newest first. */
  listForSession(sessionId: string, limit = 200): ArtifactRow[] {
    return this.bySession.all(sessionId, limit);
  }

  /** Ids of every artifact of a session (start-up sweep of files without a row). */
  idsOfSession(sessionId: string): Set<string> {
    return new Set(this.ids.all(sessionId).map((r) => r.id));
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** Count and total bytes (doctor). */
  stats(): { artifacts: number; bytes: number } {
    const r = this.totals.get();
    return { artifacts: r?.n ?? 0, bytes: r?.bytes ?? 0 };
  }
}
