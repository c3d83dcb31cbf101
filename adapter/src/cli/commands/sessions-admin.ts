import type { Command } from 'commander';
import { printJson, withClient } from '../client.js';
import { UsageError, wholeNumber } from '../usage-error.js';


/** `holdfast prune [--idle-seconds N]` and `holdfast kill <id> | --all` (DESIGN §7). */
export function registerSessionsAdmin(program: Command): void {
  program
    .command('prune')
    .description('end idle sessions (default: past their TTL tier; --idle-seconds 0: every idle one); busy ones are kept')
    .option('--idle-seconds <n>', 'idle longer than this', wholeNumber('--idle-seconds'))
    .option('--json', 'print JSON')
    .action(async (o: { idleSeconds?: number; json?: boolean }) => {
      await withClient(async (c) => {
        const r = await c.call('session.prune', o.idleSeconds === undefined ? {} : { idle_seconds: o.idleSeconds }, { retry: 'never', deadlineMs: 120_000 });
        if (o.json) return printJson(r);
        process.stdout.write(`pruned ${r.pruned.length}${r.pruned.length ? `: ${r.pruned.join(' ')}` : ''}; kept ${r.kept_busy.length} busy\n`);
      });
    });
  program
    .command('kill [id]')
    .description('end a session (or --all): its shell and every process it started are killed')
    .option('--all', 'end every live session')
    .option('--json', 'print JSON')
    .action(async (id: string | undefined, o: { all?: boolean; json?: boolean }) => {
      if ((id === undefined) === (o.all !== true)) throw new UsageError('kill needs a session id or --all (not both)');
      await withClient(async (c) => {
        const r = await c.call('session.kill', o.all ? { all: true } : { id: id! }, { retry: 'never', deadlineMs: 120_000 });
        if (o.json) return printJson(r);
        if (r.killed.length > 0) process.stdout.write(`killed ${r.killed.join(' ')}\n`);
        else process.stdout.write(o.all ? 'no live session\n' : `${id} had already ended; nothing to kill\n`);
      });
    });
}
