import type { Command } from 'commander';
import { HoldfastError } from '@holdfast/shared/errors';
import { cliClient } from '../client.js';
import { wholeNumber } from '../usage-error.js';


/**
 * `holdfast attach <id> [--follow] [--from OFFSET]` (DESIGN §7): the current screen (or the raw
 * output from OFFSET), then with --follow the live output. It resumes at its offset across a
 * daemon restart. Ctrl-C detaches; it never kills anything.
 */
export function registerAttach(program: Command): void {
  program
    .command('attach <id>')
    .description('show a session\'s screen, then (--follow) its live output; Ctrl-C detaches')
    .option('-f, --follow', 'keep printing new output')
    .option('--from <offset>', 'print raw output from this byte offset instead of the screen', wholeNumber('--from'))
    .action(async (id: string, o: { follow?: boolean; from?: number }) => {
      // A follower keeps reconnecting through daemon restarts for up to a minute.
      const c = cliClient({ giveUpMs: o.follow ? 60_000 : 1500 });
      let stop = false;
      process.on('SIGINT', () => {
        stop = true;
        process.stderr.write('\n[detached; the session keeps running]\n');
        c.close();
        process.exit(0);
      });
      try {
        await c.call('session.get', { id });
        let offset: number;
        if (o.from !== undefined) {
          offset = o.from;
        } else {
          const snap = await c.call('session.snapshot', { id });
          if (process.stdout.isTTY) process.stdout.write('\x1b[H\x1b[2J' + snap.ansi);
          else process.stdout.write(snap.lines.join('\n').replace(/\n+$/, '') + '\n');
          offset = snap.offset;
          if (!o.follow) return;
        }
        for (;;) {
          if (stop) return;
          const r = await c.call('session.read', { id, from: offset, max: 256 * 1024, wait_ms: o.follow ? 10_000 : 0 });
          if (r.gap) process.stderr.write(`[output before offset ${r.offset} is no longer retained]\n`);
          if (r.data.length > 0) await new Promise<void>((res) => process.stdout.write(Buffer.from(r.data), () => res()));
          offset = r.next;
          if (r.exited && r.next >= r.end) {
            process.stderr.write(`\n[session shell exited${r.exit_code !== null ? ` with code ${r.exit_code}` : ''}]\n`);
            return;
          }
          if (!o.follow && r.next >= r.end) return;
        }
      } catch (err) {
        if (err instanceof HoldfastError && err.code === 'SESSION_EXITED') {
          process.stderr.write(`[session ${id} has ended]\n`);
          return;
        }
        throw err;
      } finally {
        c.close();
      }
    });
}
