import { HoldfastError } from '@holdfast/shared/errors';
import type { EventsRepo } from '../store/events-repo.js';
import type { GrantedRole } from '../store/session-roles-repo.js';
import type { SessionRow } from '../store/sessions-repo.js';
import type { SessionManager } from './manager.js';

/**
 * The owner's changes to who else may use a session (issue 14, docs/sessions.md "Roles"):
 * grant a role, revoke it, hand the session over. The caller has already passed
 * `requireSessionAccess(…, 'owner')`. Every change is an event of the session.
 */

/** What a role change left: the owner, every granted role, and a line for the model. */
export interface RoleChange {
  owner: string;
  roles: { principal: string; role: GrantedRole }[];
  text: string;
}

/** Principal names as the adapter makes them: token principals, `oauth:<name>`, `owner`. */
const PRINCIPAL_NAME = /^[A-Za-z0-9._@:-]{1,200}$/;

interface Services {
  sessions: SessionManager;
  events: EventsRepo;
}

function checkOther(session: SessionRow, principal: string, what: string): void {
  if (!PRINCIPAL_NAME.test(principal)) throw new HoldfastError('BAD_REQUEST', `principal ${JSON.stringify(principal)} is not a principal name (letters, digits, . _ @ : -)`);
  if (principal === session.principal) throw new HoldfastError('BAD_REQUEST', `"${principal}" owns ${session.id} already; ${what} names another principal`);
}

function change(s: Services, id: string, text: string): RoleChange {
  const row = s.sessions.requireExisting(id);
  return { owner: row.principal, roles: s.sessions.roles.listForSession(id).map((r) => ({ principal: r.principal, role: r.role })), text };
}

/** Gives `principal` `role` on the session (replacing a role it held). @throws HoldfastError BAD_REQUEST. */
export function grantRole(s: Services, session: SessionRow, principal: string, role: GrantedRole): RoleChange {
  checkOther(session, principal, 'grant');
  const before = s.sessions.roles.get(session.id, principal)?.role;
  s.sessions.roles.put({ session_id: session.id, principal, role, granted_by: session.principal, granted_at: Date.now() });
  s.events.append({ session_id: session.id, workspace: session.workspace, kind: 'session.role_granted', data: { principal, role, ...(before ? { previous: before } : {}) } });
  return change(s, session.id, `Principal "${principal}" is now ${role} of ${session.id}${before && before !== role ? ` (was ${before})` : ''}.`);
}

/** Takes `principal`'s role away (nothing to take is not an error). @throws HoldfastError BAD_REQUEST. */
export function revokeRole(s: Services, session: SessionRow, principal: string): RoleChange {
  checkOther(session, principal, 'revoke');
  const had = s.sessions.roles.get(session.id, principal)?.role;
  if (had) {
    s.sessions.roles.delete(session.id, principal);
    s.events.append({ session_id: session.id, workspace: session.workspace, kind: 'session.role_revoked', data: { principal, role: had } });
  }
  return change(s, session.id, had ? `Principal "${principal}" no longer has a role on ${session.id} (was ${had}).` : `Principal "${principal}" had no role on ${session.id}.`);
}

/**
 * Hands the session over: `to` becomes its owner and the previous owner keeps no role. Other
 * principals' roles stay. The affinity key moves to the new owner (so its next
 * `session(action="open", workspace=…)` attaches here) unless it already has a live session
 * under that key; then this one is reachable by id only.
 * @throws HoldfastError BAD_REQUEST.
 */
export function handOff(s: Services, session: SessionRow, to: string): RoleChange {
  checkOther(session, to, 'handoff');
  let key: string | null = null;
  if (session.session_key !== null) {
    const parts = JSON.parse(session.session_key) as unknown[];
    parts[1] = to;
    const candidate = JSON.stringify(parts);
    const holder = s.sessions.findLiveByKey(candidate);
    key = holder && holder.id !== session.id ? null : candidate;
  }
  s.sessions.roles.handOff(session.id, session.principal, to, key, Date.now());
  s.events.append({ session_id: session.id, workspace: session.workspace, kind: 'session.handed_off', data: { from: session.principal, to } });
  return change(s, session.id, `Session ${session.id} now belongs to "${to}"; "${session.principal}" has no role on it any more.`);
}
