import { basename } from 'node:path';
import type { HoldfastConfig } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import type { UpstreamSpec, UpstreamState } from '@holdfast/shared/protocol';
import type { McpApprovalsRepo } from '../../store/mcp-approvals-repo.js';
import { jsonSha256 } from '../digest.js';
import { resolveSpec, serverDefinitions, WORKSPACE_MCP_FILE, type ServerDefinition, type ServerSource } from './server-definitions.js';

/**
 * State of an upstream server as `mcp_tool list`, `session(open)` and doctor show it (issue 13):
 * `invalid` (the entry does not parse, or a variable is unset), `needs_approval` (a workspace
 * entry not approved as it is now), `not_started` (usable, not yet used in this session), or what
 * the session's guardian reports: `starting`, `running`, `exited` (it ended; the next call
 * restarts it), `failed` (it could not be started; the next call tries again).
 */
export type ServerState = 'invalid' | 'needs_approval' | 'not_started' | UpstreamState['state'];

/** One server as listed. */
export interface ServerView {
  name: string;
  source: ServerSource;
  description: string;
  state: ServerState;
  /** Why it is invalid or needs approval. */
  problem?: string;
  pid?: number;
}

/** Where to find a session's servers. */
export interface ServerScope {
  config: HoldfastConfig;
  workspaceRoot: string;
  /** The registered workspace name (for the approve command in messages). */
  workspaceName: string;
  approvals: McpApprovalsRepo;
  env: NodeJS.ProcessEnv;
}

/** The command the user runs to approve a workspace server. */
export function approveCommand(workspace: string, name: string): string {
  return `holdfast mcp approve ${workspace} ${name}`;
}

/** True when a workspace entry is approved exactly as it is now (config entries need none). */
export function isApproved(scope: ServerScope, def: ServerDefinition): boolean {
  return def.source === 'config' || scope.approvals.isApproved(scope.workspaceRoot, def.name, def.entrySha256);
}

/** Every server of the scope with its state; `live` is the guardian's `g.mcp.status` (or none). */
export function serverViews(scope: ServerScope, live: UpstreamState[]): ServerView[] {
  const byName = new Map(live.map((s) => [s.name, s]));
  return serverDefinitions(scope.config, scope.workspaceRoot).map((def) => {
    const view: ServerView = { name: def.name, source: def.source, description: describe(def, byName.get(def.name)), state: 'not_started' };
    if (def.error !== null) return { ...view, state: 'invalid', problem: def.error };
    if (!isApproved(scope, def)) {
      const changed = scope.approvals.get(scope.workspaceRoot, def.name) !== undefined;
      return { ...view, state: 'needs_approval', problem: `${changed ? 'its entry (or a file it runs) changed since it was approved; ' : ''}the user must run \`${approveCommand(scope.workspaceName, def.name)}\`` };
    }
    try {
      resolveSpec(def, scope.workspaceRoot, scope.env);
    } catch (err) {
      return { ...view, state: 'invalid', problem: (err as Error).message };
    }
    const st = byName.get(def.name);
    if (!st) return view;
    return { ...view, state: st.state, ...(st.pid !== null && st.state === 'running' ? { pid: st.pid } : {}) };
  });
}

/**
 * The spec of a server this session may use now.
 * @throws HoldfastError EXTENSION_NOT_FOUND (listing the names), NEEDS_APPROVAL (with the command
 *   the user runs), BAD_REQUEST (invalid entry or unset variable).
 */
export function requireServer(scope: ServerScope, name: string): UpstreamSpec {
  const defs = serverDefinitions(scope.config, scope.workspaceRoot).filter((d) => d.name !== WORKSPACE_MCP_FILE || d.entry !== null);
  const def = defs.find((d) => d.name === name);
  if (!def) {
    const names = defs.map((d) => d.name);
    throw new HoldfastError('EXTENSION_NOT_FOUND', `no upstream MCP server named "${name}"; servers: ${names.join(', ') || '(none: add mcp_servers to config.yaml or a .mcp.json to the workspace)'}`, {
      retryable: false,
      details: { servers: names },
    });
  }
  if (def.error !== null) throw new HoldfastError('BAD_REQUEST', `upstream server "${name}" is invalid: ${def.error}`, { retryable: false });
  if (!isApproved(scope, def)) {
    const changed = scope.approvals.get(scope.workspaceRoot, name) !== undefined;
    throw new HoldfastError(
      'NEEDS_APPROVAL',
      `upstream server "${name}" is defined by the workspace's ${WORKSPACE_MCP_FILE}${changed ? ' and its entry (or a file it runs) changed since it was approved' : ''}; it does not start until the user approves it on this machine with \`${approveCommand(scope.workspaceName, name)}\``,
      { retryable: false, details: { server: name, command: approveCommand(scope.workspaceName, name) } },
    );
  }
  return resolveSpec(def, scope.workspaceRoot, scope.env);
}

/** Schema revision of an upstream tool: a digest of its whole definition (schema, annotations, description). */
export function toolRevision(tool: Record<string, unknown>): string {
  return jsonSha256(tool).slice(0, 16);
}

/**
 * A tool may run without confirmation only when the server says it is read-only and closed-world
 * (`readOnlyHint: true` and `openWorldHint: false`, issue 13); anything else — no annotations,
 * writes, or reaching outside — needs the user's confirmation.
 */
export function runsWithoutConfirmation(tool: Record<string, unknown>): boolean {
  const a = tool.annotations as Record<string, unknown> | undefined;
  return a?.readOnlyHint === true && a?.openWorldHint === false;
}

function describe(def: ServerDefinition, live: UpstreamState | undefined): string {
  const d = def.entry?.description;
  if (d) return d;
  const info = live?.serverInfo;
  if (info) return `${info.title ?? info.name} ${info.version}`;
  // Only the program's name and the URL's host and path: arguments, queries and headers may hold tokens.
  return def.entry?.command !== undefined ? `stdio: ${basename(def.entry.command)}` : def.entry?.url !== undefined ? `http: ${safeUrl(def.entry.url)}` : '';
}

/** A URL as shown to the model: no credentials or query (they may hold tokens). */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(url)';
  }
}
