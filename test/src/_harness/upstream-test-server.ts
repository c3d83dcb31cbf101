#!/usr/bin/env node
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { serveMcpHttp } from './mcp-http-server.js';

/**
 * A small upstream MCP server for the extension tests (issue 13), built with the SDK v2 server:
 * what the npm servers cannot show.
 *
 * - `note` (no annotations: needs confirmation) appends `text` to `$NOTES_FILE` and answers the
 *   number of lines, so a test can count how often it really ran.
 * - `evolving` takes `value`; `mutate` (read-only annotated) changes `evolving`'s input schema —
 *   the server edits its own tool list (a `SCHEMA_REVISION_CHANGED` between describe and call).
 * - `count_progress` sends `steps` progress notifications before it answers.
 * - `wait_cancel` writes `started` to `$CANCEL_FILE`, waits until the request is cancelled, then
 *   writes `cancelled` there.
 * - `get_env` answers one variable of its environment (to prove `${VAR}` expansion).
 *
 * `node upstream-test-server.js` serves stdio; `--http` serves Streamable HTTP on 127.0.0.1 (port
 * 0) and prints `listening <url>` on stdout. It says `upstream-test-server ready pid N` on stderr.
 */
let variant = 0;
const evolvingSchema = (): z.ZodObject => (variant === 0 ? z.object({ value: z.string() }) : z.object({ value: z.number(), unit: z.string() }));
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function build(): McpServer {
  const s = new McpServer({ name: 'upstream-test-server', version: '1.0.0' });
  s.registerTool('note', { description: 'Append a line to the notes file', inputSchema: z.object({ text: z.string() }) }, ({ text }) => {
    const file = process.env.NOTES_FILE;
    if (!file) return { content: [{ type: 'text', text: 'NOTES_FILE is not set' }], isError: true };
    appendFileSync(file, `${text}\n`);
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).length;
    return { content: [{ type: 'text', text: `noted (${lines} lines)` }], structuredContent: { lines } };
  });
  let evolving: RegisteredTool | null = null;
  evolving = s.registerTool('evolving', { description: 'A tool whose schema changes when mutate is called', inputSchema: evolvingSchema(), annotations: readOnly }, (args) => ({
    content: [{ type: 'text', text: `evolving got ${JSON.stringify(args)}` }],
  }));
  s.registerTool('mutate', { description: "Change evolving's input schema", inputSchema: z.object({}), annotations: readOnly }, () => {
    variant++;
    evolving?.update({ paramsSchema: evolvingSchema() });
    return { content: [{ type: 'text', text: `variant ${variant}` }] };
  });
  s.registerTool('count_progress', { description: 'Send progress notifications, then answer', inputSchema: z.object({ steps: z.number().int().min(1).max(50) }), annotations: readOnly }, async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
    }
    return { content: [{ type: 'text', text: `counted ${steps}` }] };
  });
  s.registerTool('wait_cancel', { description: 'Wait until cancelled', inputSchema: z.object({}), annotations: readOnly }, async (_args, ctx) => {
    if (process.env.CANCEL_FILE) writeFileSync(process.env.CANCEL_FILE, 'started');
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 60_000);
      ctx.mcpReq.signal.addEventListener('abort', () => {
        clearTimeout(t);
        if (process.env.CANCEL_FILE) writeFileSync(process.env.CANCEL_FILE, 'cancelled');
        resolve();
      });
    });
    return { content: [{ type: 'text', text: 'wait ended' }] };
  });
  s.registerTool('get_env', { description: 'One variable of the environment', inputSchema: z.object({ name: z.string() }), annotations: readOnly }, ({ name }) => ({
    content: [{ type: 'text', text: process.env[name] ?? '' }],
    structuredContent: { name, value: process.env[name] ?? null, pid: process.pid },
  }));
  return s;
}

if (process.argv.includes('--http')) {
  serveMcpHttp(build, process.env.EXPECT_AUTH);
} else {
  await build().connect(new StdioServerTransport());
}
process.stderr.write(`upstream-test-server ready pid ${process.pid}\n`);
