import type { Db } from './db.js';

/** What a session last saw with `describe` (issue 13). */
export type ExtensionKind = 'skill' | 'mcp';

/**
 * `extension_describes`: per session, the revision of each skill (folder hash) and upstream tool
 * (schema revision) its last `describe` returned, so `call` can tell that it changed since.
 */
export class ExtensionDescribesRepo {
  private readonly getStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string, string], { revision: string }>('SELECT revision FROM extension_describes WHERE session_id = ? AND kind = ? AND target = ?');
    this.putStmt = db.prepare(
      `INSERT INTO extension_describes (session_id, kind, target, revision, described_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, kind, target) DO UPDATE SET revision = excluded.revision, described_at = excluded.described_at`,
    );
  }

  /** The revision last described in this session, or undefined when never described. */
  get(sessionId: string, kind: ExtensionKind, target: string): string | undefined {
    return this.getStmt.get(sessionId, kind, target)?.revision;
  }

  put(sessionId: string, kind: ExtensionKind, target: string, revision: string): void {
    this.putStmt.run(sessionId, kind, target, revision, Date.now());
  }
}
