import type { SessionRow } from '../store/sessions-repo.js';
import type { ToolServices } from './context.js';

/**
 * The one place where a `remote_session_id` a caller names is resolved for work tracking (issue
 * 11: plan, progress, artifact, activity, artifact resources): today the session must belong to
 * the calling principal (DESIGN §4.2: another principal's session is `SESSION_NOT_FOUND`, never a
 * hint that it exists). Session roles (issue 14) plug their "may this principal see this session"
 * check in here.
 * @throws HoldfastError SESSION_NOT_FOUND.
 */
export function accessSession(services: Pick<ToolServices, 'sessions'>, principal: string, remoteSessionId: string): SessionRow {
  return services.sessions.requireOwned(remoteSessionId, principal);
}

/** {@link accessSession} as a value: the row, or null when the caller may not see it. */
export function trySession(services: Pick<ToolServices, 'sessions'>, principal: string, remoteSessionId: string): SessionRow | null {
  try {
    return accessSession(services, principal, remoteSessionId);
  } catch {
    return null;
  }
}
