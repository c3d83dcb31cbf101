import type { ControlResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { DaemonClient } from '../daemon-client.js';

/**
 * MCP resources (issue 5): task logs at
 * `holdfast://remote-sessions/{remote_session_id}/tasks/{execution_task_id}/logs`, and (issue 11)
 * artifacts at `holdfast://remote-sessions/{remote_session_id}/artifacts/{artifact_id}`, listed and read
 * through the daemon (`resource.templates`, `resource.list`, `resource.read`), scoped to the
 * calling principal. A URI the principal may not read — unknown, malformed, another principal's
 * session — is the SEP-2164 `-32602` "resource not found" error carrying the URI, never a hint
 * that it exists.
 */
export interface ResourceBackend {
  templates(): Promise<ControlResult<'resource.templates'>>;
  list(principal: string, allowedTools: string[], cursor?: string): Promise<ControlResult<'resource.list'>>;
  read(uri: string, principal: string, allowedTools: string[]): Promise<ControlResult<'resource.read'>>;
}

/** The daemon as a {@link ResourceBackend} (all calls read-only, so re-sent after a reconnect). */
export function daemonResources(client: DaemonClient): ResourceBackend {
  return {
    templates: () => client.call('resource.templates', {}),
    list: (principal, allowed_tools, cursor) => client.call('resource.list', { principal, allowed_tools, ...(cursor !== undefined ? { cursor } : {}) }),
    read: (uri, principal, allowed_tools) => client.call('resource.read', { uri, principal, allowed_tools }),
  };
}

const NOT_FOUND_CODES = new Set(['BAD_REQUEST', 'SESSION_NOT_FOUND', 'TASK_NOT_FOUND', 'ARTIFACT_NOT_FOUND', 'TOOL_NOT_ALLOWED', 'SESSION_EXITED', 'DESKTOP_NOT_FOUND']);

/** Maps a daemon failure of `resources/read` to the MCP error the client gets. */
export function resourceError(uri: string, err: unknown): Error {
  if (err instanceof HoldfastError && NOT_FOUND_CODES.has(err.code)) return new ResourceNotFoundError(uri, `Resource ${uri} not found`);
  const msg = err instanceof Error ? err.message : String(err);
  return new ProtocolError(ProtocolErrorCode.InternalError, `reading ${uri} failed: ${msg}`);
}
