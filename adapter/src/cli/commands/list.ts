import type { Command } from 'commander';
import { printJson, shortDuration, table, withClient } from '../client.js';

/** `holdfast list [--json] [--all]` (DESIGN §7). */
export function registerList(program: Command): void {
  program
    .command('list')
    .description('list live sessions (--all: ended ones too)')
    .option('--json', 'print JSON')
    .option('--all', 'include exited, closed and lost sessions')
    .action(async (o: { json?: boolean; all?: boolean }) => {
      await withClient(async (c) => {
        const { sessions } = await c.call('session.list', { all: o.all === true });
        if (o.json) return printJson(sessions);
        if (sessions.length === 0) {
          process.stdout.write('no sessions\n');
          return;
        }
        const rows = sessions.map((s) => [
          s.remote_session_id,
          s.state + (s.end_reason && s.state !== 'running' ? `(${s.end_reason}${s.exit_code !== null ? ` ${s.exit_code}` : ''})` : ''),
          s.workspace,
          s.principal,
          String(s.shell_pid ?? '-'),
          s.busy ? 'busy' : 'idle',
          ...(s.state === 'running' || s.state === 'starting' ? [shortDuration(s.idle_seconds), shortDuration(s.ttl_seconds)] : ['-', '-']),
        ]);
        process.stdout.write(table(['ID', 'STATE', 'WORKSPACE', 'PRINCIPAL', 'SHELL', 'BUSY', 'IDLE', 'TTL'], rows));
      });
    });
}
