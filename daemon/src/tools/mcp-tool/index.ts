import { requireServer, runsWithoutConfirmation, toolRevision } from '../../extensions/mcp/servers.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import { checkPurpose } from '../../extensions/confirmation.js';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import { callUpstreamTool } from './call.js';
import { findUpstreamTool, requireTarget, type McpToolArgs } from './target.js';
import { requireSessionAccess } from '../../sessions/access.js';
import { liveServerViews, serverScope, upstreamLink } from './upstream-link.js';

/** One line of a tool description, at most this many characters, in `list(server)`. */
const ONE_LINE_MAX_CHARS = 160;

/**
 * `mcp_tool` (issue 13; docs/extensions.md): upstream MCP servers of the session, hosted by its
 * guardian. `list` → the servers with their states; `list(server)` → its tools, one line each
 * (starts the server); `describe(server, tool)` → input schema, annotations, schema revision (and
 * records the revision for this session); `call` → see {@link callUpstreamTool}.
 */
export async function mcpToolHandler(args: McpToolArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { session } = requireSessionAccess(ctx, args.remote_session_id, args.action === 'call' ? 'editor' : 'viewer');
  checkPurpose(args.purpose);
  switch (args.action) {
    case 'list':
      return args.server === undefined ? listServers(session, ctx) : listTools(args.server, session, ctx);
    case 'describe':
      return describeTool(args, session, ctx);
    case 'call':
      return callUpstreamTool(args, session, ctx);
  }
}

async function listServers(session: SessionRow, ctx: ToolContext): Promise<ToolOutcome> {
  const servers = await liveServerViews(session, ctx);
  const rs = session.id;
  const lines = servers.map((s) => `${s.name} [${s.state}]${s.description ? ` — ${s.description}` : ''}${s.problem ? ` (${s.problem})` : ''}`);
  const usable = servers.find((s) => s.state !== 'invalid' && s.state !== 'needs_approval');
  return outcome('mcp.servers', 'succeeded', { servers }, servers.length > 0 ? `${servers.length} upstream MCP server(s):\n${lines.join('\n')}` : 'No upstream MCP servers: add mcp_servers to config.yaml or a .mcp.json to the workspace.', {
    context: { remote_session_id: rs },
    actions: usable ? [action('mcp_tool', { action: 'list', remote_session_id: rs, server: usable.name }, `list the tools of ${usable.name}`)] : [],
  });
}

async function listTools(server: string, session: SessionRow, ctx: ToolContext): Promise<ToolOutcome> {
  const spec = requireServer(serverScope(session, ctx), server);
  const link = await upstreamLink(session, ctx);
  const { tools, upstream } = await link.mcpListTools(spec, ctx.signal);
  const rows = tools.map((t) => ({ name: String(t.name), description: oneLine(t) }));
  const rs = session.id;
  return outcome('mcp.tools', 'succeeded', { server, state: upstream.state, tools: rows }, `${server}: ${rows.length} tool(s)\n${rows.map((r) => `${r.name} — ${r.description}`).join('\n')}`, {
    context: { remote_session_id: rs },
    actions: rows.length > 0 ? [action('mcp_tool', { action: 'describe', remote_session_id: rs, server, tool: rows[0]!.name }, 'see a tool’s input schema before calling it')] : [],
  });
}

async function describeTool(args: McpToolArgs, session: SessionRow, ctx: ToolContext): Promise<ToolOutcome> {
  const { server, tool } = requireTarget(args);
  const spec = requireServer(serverScope(session, ctx), server);
  const link = await upstreamLink(session, ctx);
  const { tools } = await link.mcpListTools(spec, ctx.signal);
  const def = findUpstreamTool(tools, server, tool);
  const revision = toolRevision(def);
  ctx.services.extensions.describes.put(session.id, 'mcp', `${server}/${tool}`, revision);
  const confirm = !runsWithoutConfirmation(def);
  const data = {
    server,
    tool,
    ...(typeof def.title === 'string' ? { title: def.title } : {}),
    description: typeof def.description === 'string' ? def.description : '',
    input_schema: def.inputSchema ?? { type: 'object' },
    ...(def.outputSchema ? { output_schema: def.outputSchema } : {}),
    annotations: def.annotations ?? {},
    revision,
    needs_confirmation: confirm,
  };
  const rs = session.id;
  return outcome('mcp.describe', 'succeeded', data, `${server}/${tool} (revision ${revision})${confirm ? ', needs the user’s confirmation to call' : ', read-only: runs at once'}\n${data.description}\ninput schema: ${JSON.stringify(data.input_schema)}`, {
    context: { remote_session_id: rs },
    actions: [action('mcp_tool', { action: 'call', remote_session_id: rs, server, tool }, 'call it with arguments matching the input schema')],
  });
}

function oneLine(t: Record<string, unknown>): string {
  const text = typeof t.description === 'string' ? t.description : typeof t.title === 'string' ? t.title : '';
  const first = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return first.length > ONE_LINE_MAX_CHARS ? `${first.slice(0, ONE_LINE_MAX_CHARS - 1)}…` : first;
}
