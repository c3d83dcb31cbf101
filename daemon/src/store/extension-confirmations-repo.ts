import type { Db } from './db.js';
import type { ExtensionKind } from './extension-describes-repo.js';

/** One `waiting_confirmation` of an extension call (issue 13). */
export interface ExtensionConfirmationRow {
  id: string;
  session_id: string;
  principal: string;
  kind: ExtensionKind;
  target: string;
  revision: string;
  args_sha256: string;
  purpose: string | null;
  fingerprint: string;
  summary: string;
  state: 'pending' | 'used';
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/**
 * `extension_confirmations`: asked-for confirmations of executable skills and upstream tool
 * calls. A confirmation is found by (session, fingerprint) and used once (`take` is atomic).
 */
export class ExtensionConfirmationsRepo {
  private readonly latestStmt;
  private readonly insertStmt;
  private readonly renewStmt;
  private readonly takeStmt;
  private readonly purgeStmt;
  private lastPurge = 0;

  constructor(db: Db) {
    this.latestStmt = db.prepare<[string, string], ExtensionConfirmationRow>(
      "SELECT * FROM extension_confirmations WHERE session_id = ? AND fingerprint = ? AND state = 'pending' ORDER BY created_at DESC LIMIT 1",
    );
    this.insertStmt = db.prepare(
      `INSERT INTO extension_confirmations (id, session_id, principal, kind, target, revision, args_sha256, purpose, fingerprint, summary, state, created_at, expires_at, used_at)
       VALUES (@id, @session_id, @principal, @kind, @target, @revision, @args_sha256, @purpose, @fingerprint, @summary, @state, @created_at, @expires_at, @used_at)`,
    );
    this.renewStmt = db.prepare('UPDATE extension_confirmations SET expires_at = ?, created_at = ? WHERE id = ?');
    this.takeStmt = db.prepare("UPDATE extension_confirmations SET state = 'used', used_at = ? WHERE id = ? AND state = 'pending' AND expires_at > ?");
    this.purgeStmt = db.prepare('DELETE FROM extension_confirmations WHERE expires_at < ?');
  }

  /** The newest pending confirmation of this exact call in this session (expired or not). */
  pending(sessionId: string, fingerprint: string): ExtensionConfirmationRow | undefined {
    return this.latestStmt.get(sessionId, fingerprint);
  }

  insert(row: ExtensionConfirmationRow): void {
    this.insertStmt.run(row);
    if (row.created_at - this.lastPurge > 60_000) {
      this.lastPurge = row.created_at;
      // Expired a day ago: nobody can use or be told about them any more.
      this.purgeStmt.run(row.created_at - 86_400_000);
    }
  }

  /** Asks again: a pending confirmation gets a new expiry. */
  renew(id: string, expiresAt: number): void {
    this.renewStmt.run(expiresAt, Date.now(), id);
  }

  /** Uses a pending, unexpired confirmation; false when another call used it first or it expired. */
  take(id: string, now = Date.now()): boolean {
    return this.takeStmt.run(now, id, now).changes === 1;
  }
}
