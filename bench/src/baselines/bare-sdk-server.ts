#!/usr/bin/env node
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { McpServer } from '@modelcontextprotocol/server';
import { serveMcpHttp } from '@holdfast/test/harness/mcp-http';
import * as z from 'zod';
import { TOOLS } from '@holdfast/shared/tools';

/**
 * The baseline of `npm run bench`: a bare SDK v2 Streamable HTTP server with the fewest layers a
 * real server has (Host/Origin checks, a bearer comparison), whose tools do the work with plain
 * Node calls — `run_true` runs `true` with child_process, `read_file` reads with fs. Our ratios
 * say what holdfast's adapter → daemon → guardian layers cost on top of this.
 * Prints `listening <url>` on stdout.
 */
const token = process.env.BENCH_TOKEN ?? '';
function build(): McpServer {
  const s = new McpServer({ name: 'bare-sdk-baseline', version: '1.0.0' });
  s.registerTool(
    'run_true',
    { description: 'run `true`', inputSchema: z.object({}), outputSchema: z.object({ exit_code: z.number() }) },
    () =>
      new Promise((resolve) => {
        execFile('true', (err) => {
          const exit_code = err ? 1 : 0;
          resolve({ content: [{ type: 'text', text: `exit ${exit_code}` }], structuredContent: { exit_code } });
        });
      }),
  );
  s.registerTool(
    'read_file',
    { description: 'read a file', inputSchema: z.object({ path: z.string() }), outputSchema: z.object({ content: z.string() }) },
    async ({ path }) => {
      const content = await readFile(path, 'utf8');
      return { content: [{ type: 'text', text: content }], structuredContent: { content } };
    },
  );
  // With BENCH_CATALOG=holdfast the baseline also lists holdfast's own tool catalogue (same names,
  // schemas and annotations; handlers unused), so tools/list compares our layers, not list sizes.
  if (process.env.BENCH_CATALOG === 'holdfast') {
    for (const t of TOOLS) {
      s.registerTool(t.name, { title: t.title, description: t.description, inputSchema: t.input, outputSchema: t.output, annotations: t.annotations }, () => ({
        content: [{ type: 'text', text: 'unused' }],
      }));
    }
  }
  return s;
}
serveMcpHttp(build, token ? `Bearer ${token}` : undefined);
