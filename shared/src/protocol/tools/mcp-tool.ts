import * as z from 'zod';
import type { ToolDef } from './envelope.js';

/**
 * `mcp_tool` (issue 13; docs/extensions.md): upstream MCP servers, hosted by the session's
 * guardian, behind one tool. `list` → servers (name, description, state), or with `server` its
 * tools (name, one line); `describe` → a tool's input schema, annotations and schema revision;
 * `call` → `tools/list`, argument validation and `tools/call` in the same upstream connection.
 *
 * No `outputSchema`: a call passes the upstream result's `content`, `structuredContent` and
 * `isError` through unchanged; the holdfast envelope (DESIGN §6.3) is in `_meta["holdfast/envelope"]`
 * (and, for answers holdfast makes itself, also in `structuredContent`).
 */
export const mcpTool = {
  name: 'mcp_tool',
  title: 'Use an upstream MCP server',
  description:
    "Other MCP servers of this session. action=list (servers and state; with server: its tools); describe (server, tool → input schema, annotations, revision); call (server, tool, arguments → the upstream result as is). " +
    'Tools not annotated read-only and closed-world answer waiting_confirmation: ask the user, repeat the call with user_confirmed=true.',
  input: z.object({
    action: z.enum(['list', 'describe', 'call']).default('list'),
    remote_session_id: z.string().describe('From session(action="open")'),
    server: z.string().min(1).max(64).optional(),
    tool: z.string().min(1).max(128).optional(),
    arguments: z.record(z.string(), z.unknown()).optional().describe('call: the tool arguments'),
    purpose: z.string().max(500).optional().describe('Why (shown to the user)'),
    user_confirmed: z.boolean().optional().describe('The user confirmed this exact call'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
