import { HoldfastError } from '@holdfast/shared/errors';
import { serverViews, type ServerScope } from '../../extensions/mcp/servers.js';
import type { GuardianLink } from '../../sessions/link.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import type { ToolContext } from '../context.js';

/** Where the session's upstream servers are defined (config, its workspace, approvals). */
export function serverScope(session: SessionRow, ctx: ToolContext): ServerScope {
  const x = ctx.services.extensions;
  return { config: ctx.services.config.config, workspaceRoot: session.workspace_root, workspaceName: session.workspace, approvals: x.approvals, env: x.env };
}

/**
 * The link to the session's guardian, which must host upstream servers (feature `upstream.mcp`).
 * @throws HoldfastError UPSTREAM_UNAVAILABLE for a guardian started by an older holdfast.
 */
export async function upstreamLink(session: SessionRow, ctx: ToolContext): Promise<GuardianLink> {
  const link = await ctx.services.sessions.ensureLink(session.id);
  if (!link.hostsUpstreams) {
    throw new HoldfastError('UPSTREAM_UNAVAILABLE', `the guardian of ${session.id} was started by an older holdfast (build ${link.build}) that cannot host upstream MCP servers; open a new session for them`, {
      retryable: false,
    });
  }
  return link;
}

/**
 * Compact extension state of a session for `session(open)` and `mcp_tool list` (issue 13): the
 * servers with their states (guardian state when it hosts upstreams; else as defined).
 */
export async function liveServerViews(session: SessionRow, ctx: ToolContext): Promise<ReturnType<typeof serverViews>> {
  let live: Awaited<ReturnType<GuardianLink['mcpStatus']>>['servers'] = [];
  if (session.state === 'running') {
    try {
      const link = await ctx.services.sessions.ensureLink(session.id);
      if (link.hostsUpstreams) live = (await link.mcpStatus()).servers;
    } catch {
      live = [];
    }
  }
  return serverViews(serverScope(session, ctx), live);
}
