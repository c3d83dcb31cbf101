import { resolve } from 'node:path';
import type { Command } from 'commander';
import { printJson, withClient } from '../client.js';

/** `holdfast workspace register <path> [--name N] [--description D]`, `workspace list` and `workspace remove <name>`. */
export function registerWorkspace(program: Command): void {
  const w = program.command('workspace').description('manage registered workspaces');
  w.command('register <path>')
    .description('register a folder as a workspace (name defaults to the folder name)')
    .option('--name <name>', 'workspace name')
    .option('--description <text>', 'one line shown to agents')
    .option('--json', 'print JSON')
    .action(async (path: string, o: { name?: string; description?: string; json?: boolean }) => {
      await withClient(
        async (c) => {
          const r = await c.call('workspace.register', { path: resolve(path), ...(o.name ? { name: o.name } : {}), ...(o.description ? { description: o.description } : {}) });
          if (o.json) return printJson(r);
          process.stdout.write(`${r.created ? 'registered' : 'already registered'}: ${r.workspace.name} → ${r.workspace.path}\n`);
        },
        { autoStart: true, giveUpMs: 15_000 },
      );
    });
  w.command('remove <name>')
    .description('unregister a workspace (its folder is untouched); refused while a live session uses it')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }) => {
      await withClient(async (c) => {
        const r = await c.call('workspace.remove', { name }, { retry: 'never' });
        if (o.json) return printJson(r);
        process.stdout.write(`removed: ${r.workspace.name} (was ${r.workspace.path}; the folder is untouched)\n`);
      });
    });
  w.command('list')
    .description('list registered workspaces')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      await withClient(async (c) => {
        const { workspaces } = await c.call('workspace.list', {});
        if (o.json) return printJson(workspaces);
        for (const x of workspaces) process.stdout.write(`${x.name}\t${x.path}${x.available ? '' : '\t(unavailable)'}\n`);
      });
    });
}
