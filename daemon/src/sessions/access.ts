import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';
import type { SessionRow } from '../store/sessions-repo.js';
import type { SessionManager } from './manager.js';

/**
 * Roles a principal can hold on a session, weakest first (issue 14, docs/sessions.md "Roles"):
 * - `viewer`: observe and read (tools `observe`, `read`, `runtime_read` for the session; task-log
 *   and artifact resources; the observe stream);
 * - `editor`: + `execute`, `edit`, `move_out` prepare (and confirming its own pending calls);
 * - `approver`: + confirming another principal's pending `waiting_confirmation` call or move;
 * - `owner`: + close, grant, revoke, handoff. The creator of a session is its owner.
 */
export const SESSION_ROLES = ['viewer', 'editor', 'approver', 'owner'] as const;
export type SessionRole = (typeof SESSION_ROLES)[number];

/** True when `held` includes everything `need` allows. */
export function roleAtLeast(held: SessionRole, need: SessionRole): boolean {
  return SESSION_ROLES.indexOf(held) >= SESSION_ROLES.indexOf(need);
}

/** Who asks: a tool context (`ToolContext` fits) or any caller with a principal and the session registry. */
export interface AccessCaller {
  call: { principal: string };
  services: { sessions: SessionManager };
}

/** A session the caller may use, with the role it holds there. */
export interface SessionAccess {
  session: SessionRow;
  role: SessionRole;
}

/**
 * THE session access check of the daemon (issue 14): every tool, resource and stream that takes
 * a `remote_session_id` from a principal calls this, once, before it touches the session — and
 * passes the weakest role its action needs:
 *
 * ```ts
 * const { session, role } = requireSessionAccess(ctx, args.remote_session_id, 'viewer');   // look
 * const { session } = requireSessionAccess(ctx, args.remote_session_id, 'editor');         // change
 * ```
 *
 * Anything looked up inside the session afterwards (a task, an artifact, an operation) must be
 * looked up *within* `session.id`, so an id of another session is a not-found too.
 *
 * - A session that does not exist, or on which the principal holds no role at all →
 *   `SESSION_NOT_FOUND`, with the same message in both cases: a principal cannot tell another
 *   principal's session from one that never existed (a malformed id says so: it is nobody's).
 * - A role weaker than `need` → `ROLE_REQUIRED` (the caller can see the session, so saying why
 *   hides nothing); the message names the role needed and who can grant it.
 * @throws HoldfastError SESSION_NOT_FOUND, ROLE_REQUIRED.
 */
export function requireSessionAccess(caller: AccessCaller, remoteSessionId: string, need: SessionRole): SessionAccess {
  const principal = caller.call.principal;
  const m = caller.services.sessions;
  if (!isId('remoteSession', remoteSessionId)) {
    // Cannot be anyone's session: saying so reveals nothing and helps a model that shortened it.
    throw new HoldfastError('SESSION_NOT_FOUND', `"${remoteSessionId}" is not a remote_session_id; pass the full rs_… id returned by session(action="open")`);
  }
  const session = m.findSession(remoteSessionId);
  const role = session ? m.roleOf(session, principal) : null;
  if (!session || role === null) {
    throw new HoldfastError('SESSION_NOT_FOUND', `no session ${remoteSessionId} for this principal; open one with session(action="open")`);
  }
  if (!roleAtLeast(role, need)) {
    const how =
      need === 'owner'
        ? `only its owner ("${session.principal}") can do this`
        : `its owner ("${session.principal}") can grant it with session(action="grant", remote_session_id="${session.id}", principal="${principal}", role="${need}")`;
    throw new HoldfastError('ROLE_REQUIRED', `this needs the ${need} role on session ${session.id}; principal "${principal}" holds ${role}: ${how}`, {
      retryable: false,
      details: { role, need },
    });
  }
  return { session, role };
}
