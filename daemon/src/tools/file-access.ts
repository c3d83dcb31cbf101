import { HoldfastError } from '@holdfast/shared/errors';
import type { FileServices } from '../files/file-services.js';
import { resolveWorkspacePath, type ResolvedPath } from '../files/workspace-path.js';
import { assertAllowed, assertWritable, filePolicyFor, type FilePolicy } from '../policy/files.js';
import type { DiskSpace } from '../store/disk-space.js';
import type { SessionRow } from '../store/sessions-repo.js';
import type { ToolContext } from './context.js';

/** The workspace a file tool call works in: the caller's live session, its root and policy. */
export interface FileWorkspace {
  session: SessionRow;
  /** Canonical workspace root (realpath, as the session stores it). */
  root: string;
  policy: FilePolicy;
  files: FileServices;
  /** Free space under the state (issue 18): bookkeeping writes that hit a full disk are noted here. */
  disk: DiskSpace;
}

/**
 * The session's workspace for a file tool (issue 4: tools are session-bound). The session must be
 * the caller's and live.
 * @throws HoldfastError SESSION_NOT_FOUND, SESSION_EXITED, POLICY_DENIED (invalid project config).
 */
export function openWorkspace(ctx: ToolContext, remoteSessionId: string): FileWorkspace {
  const session = ctx.services.sessions.requireOwned(remoteSessionId, ctx.call.principal);
  if (session.state !== 'running' && session.state !== 'starting') {
    throw new HoldfastError('SESSION_EXITED', `session ${session.id} is ${session.state}; open a new one with session(action="open")`);
  }
  const root = session.workspace_root;
  return { session, root, policy: filePolicyFor(ctx.services.config.config, ctx.services.files.projects, root), files: ctx.services.files, disk: ctx.services.disk };
}

/**
 * Resolves a path for reading: inside the workspace, allowed by policy.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE, POLICY_DENIED, BAD_REQUEST.
 */
export function resolveForRead(ws: FileWorkspace, path: string, followFinal = true): ResolvedPath {
  const p = resolveWorkspacePath(ws.root, path, { followFinal });
  assertAllowed(ws.policy, p);
  return p;
}

/**
 * Resolves a path for a write (edit target, rename destination, move_out target): as for reading,
 * plus never the project config and never the workspace root itself.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE, POLICY_DENIED, BAD_REQUEST.
 */
export function resolveForWrite(ws: FileWorkspace, path: string, followFinal = true): ResolvedPath {
  const p = resolveForRead(ws, path, followFinal);
  if (p.rel === '' || p.realRel === '') throw new HoldfastError('BAD_REQUEST', 'the workspace root itself cannot be the target of a write');
  assertWritable(p);
  return p;
}

/** Context ids of a file tool result (DESIGN §6.3). */
export function fileContext(ws: FileWorkspace, purpose?: string): { remote_session_id: string; purpose?: string } {
  return purpose ? { remote_session_id: ws.session.id, purpose } : { remote_session_id: ws.session.id };
}
