import type { Db } from './db.js';

/** Roles the owner of a session can grant another principal (issue 14). */
export type GrantedRole = 'viewer' | 'editor' | 'approver';

/** One row of `session_roles`: `principal` holds `role` on `session_id`, granted by its owner. */
export interface SessionRoleRow {
  session_id: string;
  principal: string;
  role: GrantedRole;
  granted_by: string;
  granted_at: number;
}

/** Repository of `session_roles` (and of the ownership change of a handoff, which spans `sessions`). */
export class SessionRolesRepo {
  private readonly getStmt;
  private readonly forSession;
  private readonly forPrincipal;
  private readonly putStmt;
  private readonly deleteStmt;

  /** `onSessionWrite(id)` is told of every write to a `sessions` row here (the row cache of SessionsRepo). */
  constructor(
    private readonly db: Db,
    private readonly onSessionWrite: (sessionId: string) => void = () => undefined,
  ) {
    this.getStmt = db.prepare<[string, string], SessionRoleRow>('SELECT * FROM session_roles WHERE session_id = ? AND principal = ?');
    this.forSession = db.prepare<[string], SessionRoleRow>('SELECT * FROM session_roles WHERE session_id = ? ORDER BY granted_at');
    this.forPrincipal = db.prepare<[string], { session_id: string }>('SELECT session_id FROM session_roles WHERE principal = ?');
    this.putStmt = db.prepare(
      `INSERT INTO session_roles (session_id, principal, role, granted_by, granted_at) VALUES (@session_id, @principal, @role, @granted_by, @granted_at)
       ON CONFLICT (session_id, principal) DO UPDATE SET role = excluded.role, granted_by = excluded.granted_by, granted_at = excluded.granted_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM session_roles WHERE session_id = ? AND principal = ?');
  }

  /** The role `principal` was granted on a session, if any. */
  get(sessionId: string, principal: string): SessionRoleRow | undefined {
    return this.getStmt.get(sessionId, principal);
  }

  /** Every grant on one session, oldest first. */
  listForSession(sessionId: string): SessionRoleRow[] {
    return this.forSession.all(sessionId);
  }

  /** Ids of the sessions `principal` holds a granted role on. */
  sessionIdsFor(principal: string): string[] {
    return this.forPrincipal.all(principal).map((r) => r.session_id);
  }

  /** Grants (or changes) a role. */
  put(row: SessionRoleRow): void {
    this.putStmt.run(row);
  }

  /** Takes a role away. @returns whether there was one. */
  delete(sessionId: string, principal: string): boolean {
    return this.deleteStmt.run(sessionId, principal).changes === 1;
  }

  /**
   * Hands a session over in one transaction: `to` becomes `sessions.principal` with the given
   * affinity key (null when the new owner's key is taken by another live session), and any role
   * `to` or `from` held on it is dropped — the previous owner keeps nothing.
   */
  handOff(sessionId: string, from: string, to: string, sessionKey: string | null, now: number): void {
    this.onSessionWrite(sessionId);
    this.db.transaction(() => {
      this.db.prepare('UPDATE sessions SET principal = ?, session_key = ?, updated_at = ? WHERE id = ?').run(to, sessionKey, now, sessionId);
      this.deleteStmt.run(sessionId, to);
      this.deleteStmt.run(sessionId, from);
    })();
  }
}
