import { resolve } from 'node:path';
import type { Command } from 'commander';
import { printJson, withClient } from '../client.js';

/**
 * `holdfast mcp approve <workspace> <name> [--json]` (issue 13; docs/extensions.md): approves the
 * workspace's `.mcp.json` server `name` exactly as its entry is now, so sessions may start it. The
 * entry is printed first: approving starts that command on this machine. `<workspace>` is a
 * registered name or a folder (a path is resolved here, against the current directory).
 */
export function registerMcp(program: Command): void {
  const m = program.command('mcp').description('upstream MCP servers of workspaces');
  m.command('approve <workspace> <name>')
    .description("approve a server of the workspace's .mcp.json (needed once, and again after its entry changes)")
    .option('--json', 'print JSON')
    .action(async (workspace: string, name: string, o: { json?: boolean }) => {
      const ws = workspace.includes('/') || workspace === '.' || workspace === '..' ? resolve(workspace) : workspace;
      await withClient(async (c) => {
        const r = await c.call('mcp.approve', { workspace: ws, name });
        if (o.json) return printJson(r);
        process.stdout.write(`${r.previously_approved ? 'already approved' : 'approved'}: ${r.workspace} ${r.name} (entry sha256 ${r.entry_sha256.slice(0, 12)})\n${JSON.stringify(r.entry, null, 2)}\n`);
        if (r.shadowed_by_config) process.stdout.write(`note: config.yaml defines a server named ${r.name}; that entry is used instead of this one\n`);
      });
    });
}
