import { HoldfastError } from '@holdfast/shared/errors';
import type { mcpTool } from '@holdfast/shared/tools';
import type * as z from 'zod';

/** Parsed arguments of `mcp_tool`. */
export type McpToolArgs = z.output<typeof mcpTool.input>;

/** `server` and `tool`, required by describe and call. */
export function requireTarget(args: McpToolArgs): { server: string; tool: string } {
  if (args.server === undefined || args.tool === undefined) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs server and tool (see mcp_tool(action="list"))`);
  return { server: args.server, tool: args.tool };
}

/**
 * A tool of the upstream's current `tools/list`.
 * @throws HoldfastError EXTENSION_NOT_FOUND listing the server's tools.
 */
export function findUpstreamTool(tools: Record<string, unknown>[], server: string, tool: string): Record<string, unknown> {
  const def = tools.find((t) => t.name === tool);
  if (!def) {
    const names = tools.map((t) => String(t.name));
    throw new HoldfastError('EXTENSION_NOT_FOUND', `upstream server "${server}" has no tool "${tool}"; its tools: ${names.slice(0, 50).join(', ') || '(none)'}`, {
      retryable: false,
      details: { server, tools: names },
    });
  }
  return def;
}
