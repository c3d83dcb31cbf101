import { requireSessionAccess, type SessionRole } from '../sessions/access.js';
import type { SessionRow } from '../store/sessions-repo.js';
import type { ToolServices } from './context.js';

/**
 * Resolves a `remote_session_id` a caller names for work tracking (issue 11: plan, progress,
 * artifact, activity, artifact resources) through the one session-role check of issue 14
 * ({@link requireSessionAccess}): `viewer` to look (plan read, artifact read/list, activity on a
 * read-only call), `editor` to change (plan writes, progress, artifact register). A principal with
 * no role gets the same `SESSION_NOT_FOUND` as for a session that does not exist.
 * @throws HoldfastError SESSION_NOT_FOUND, ROLE_REQUIRED.
 */
export function accessSession(services: Pick<ToolServices, 'sessions'>, principal: string, remoteSessionId: string, need: SessionRole = 'viewer'): SessionRow {
  return requireSessionAccess({ call: { principal }, services }, remoteSessionId, need).session;
}

/** {@link accessSession} as a value: the row, or null when the caller may not see it. */
export function trySession(services: Pick<ToolServices, 'sessions'>, principal: string, remoteSessionId: string): SessionRow | null {
  try {
    return accessSession(services, principal, remoteSessionId);
  } catch {
    return null;
  }
}
