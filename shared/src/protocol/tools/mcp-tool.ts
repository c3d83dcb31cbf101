import * as z from 'zod';
import type { ToolDef } from './envelope.js';
import { PassThroughArguments } from './pass-through-arguments.js';

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
  title: 'Upstream MCP servers',
  description:
    'Other MCP servers. action=list (servers; with server: its tools); describe(server, tool): input schema, annotations, revision; call(server, tool, arguments): the upstream result. ' +
    'waiting_confirmation (tools not annotated read-only): ask the user, repeat with user_confirmed=true.',
  input: z.object({
    action: z.enum(['list', 'describe', 'call']).default('list'),
    remote_session_id: z.string(),
    server: z.string().optional(),
    tool: z.string().optional(),
    arguments: PassThroughArguments.optional().describe('call: a JSON object'),
    purpose: z.string().optional().describe('Shown to the user'),
    user_confirmed: z.boolean().optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
