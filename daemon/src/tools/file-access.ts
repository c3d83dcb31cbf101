import { HoldfastError } from '@holdfast/shared/errors';
import type { FileServices } from '../files/file-services.js';
import { resolveWorkspacePath, type ResolvedPath } from '../files/workspace-path.js';
import { assertAllowed, assertWritable, filePolicyFor, type FilePolicy } from '../policy/files.js';
import type { DiskSpace } from '../store/disk-space.js';
import type { ReadScope } from '../store/file-reads-repo.js';
import { requireSessionAccess, type SessionRole } from '../sessions/access.js';
import { assertSandboxReadable, assertSandboxWritable, parseSessionSandbox, type SessionSandbox } from '../sandbox/session-sandbox.js';
import type { SessionRow } from '../store/sessions-repo.js';
import type { ToolContext } from './context.js';

/** The workspace a file tool call works in: the caller's live session, its root and policy. */
export interface FileWorkspace {
  session: SessionRow;
  /** Who calls, and the role it holds on the session (issue 14). */
  principal: string;
  role: SessionRole;
  /** Canonical workspace root (realpath, as the session stores it). */
  root: string;
  policy: FilePolicy;
  files: FileServices;
  /** Free space under the state (issue 18): bookkeeping writes that hit a full disk are noted here. */
  disk: DiskSpace;
  /** Whose reads count (issue 8): this session and the caller's conversation. */
  reader: ReadScope;
  /** The session's sandbox (issue 17): the file tools keep to its writable set; null = none. */
  sandbox: SessionSandbox | null;
}

/**
 * The session's workspace for a file tool (issue 4: tools are session-bound). The caller must hold
 * at least `need` on the session (issue 14: `viewer` to read, `editor` to change) and it must be live.
 * @throws HoldfastError SESSION_NOT_FOUND, ROLE_REQUIRED, SESSION_EXITED, POLICY_DENIED (invalid project config).
 */
export function openWorkspace(ctx: ToolContext, remoteSessionId: string, need: SessionRole): FileWorkspace {
  const { session, role } = requireSessionAccess(ctx, remoteSessionId, need);
  if (session.state !== 'running' && session.state !== 'starting') {
    throw new HoldfastError('SESSION_EXITED', `session ${session.id} is ${session.state}; open a new one with session(action="open")`);
  }
  const root = session.workspace_root;
  const sandbox = parseSessionSandbox(session.sandbox);
  const policy = filePolicyFor(ctx.services.config.config, ctx.services.files.projects, root);
  return { session, principal: ctx.call.principal, role, root, policy: sandbox ? withHiddenDenied(policy, root, sandbox) : policy, files: ctx.services.files, sandbox, disk: ctx.services.disk, reader: { sessionId: session.id, reader: ctx.call.conversation_id ?? '' } };
}

/** The policy plus one deny rule per folder the sandbox hides inside the workspace (so walks skip it too). */
function withHiddenDenied(policy: FilePolicy, root: string, sandbox: SessionSandbox): FilePolicy {
  const rules = sandbox.hidden
    .filter((h) => h.startsWith(`${root}/`))
    .map((h) => {
      const source = `^${h.slice(root.length + 1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/|$)`;
      return { source, re: new RegExp(source) };
    });
  return rules.length === 0 ? policy : { ...policy, deny: [...policy.deny, ...rules] };
}

/**
 * Resolves a path for reading: inside the workspace, allowed by policy, not hidden by the session's
 * sandbox (issue 17).
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE, POLICY_DENIED, BAD_REQUEST.
 */
export function resolveForRead(ws: FileWorkspace, path: string, followFinal = true): ResolvedPath {
  const p = resolveWorkspacePath(ws.root, path, { followFinal });
  assertSandboxReadable(ws.sandbox, p.real, p.rel);
  assertAllowed(ws.policy, p);
  return p;
}

/**
 * Resolves a path for a write (edit target, rename destination, move_out target): as for reading,
 * plus inside the sandbox's writable set (issue 17), never the project config and never the
 * workspace root itself.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE, POLICY_DENIED, BAD_REQUEST.
 */
export function resolveForWrite(ws: FileWorkspace, path: string, followFinal = true): ResolvedPath {
  const p = resolveForRead(ws, path, followFinal);
  if (p.rel === '' || p.realRel === '') throw new HoldfastError('BAD_REQUEST', 'the workspace root itself cannot be the target of a write');
  assertSandboxWritable(ws.sandbox, p.real, p.rel);
  assertWritable(p);
  return p;
}

/** Context ids of a file tool result (DESIGN §6.3). */
export function fileContext(ws: FileWorkspace, purpose?: string): { remote_session_id: string; purpose?: string } {
  return purpose ? { remote_session_id: ws.session.id, purpose } : { remote_session_id: ws.session.id };
}
