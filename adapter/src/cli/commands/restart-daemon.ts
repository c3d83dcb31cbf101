import type { Command } from 'commander';
import { HoldfastError } from '@holdfast/shared/errors';
import { withClient } from '../client.js';

/**
 * `holdfast restart-daemon` (DESIGN §4.5): hot reload — the daemon drains, hands over to a
 * successor running the code now on disk, and exits; guardians, shells and running commands are
 * untouched. Waits until the successor answers.
 */
export function registerRestartDaemon(program: Command): void {
  program
    .command('restart-daemon')
    .description('restart holdfastd in place (sessions, shells and running commands survive)')
    .action(async () => {
      await withClient(
        async (c) => {
          const before = await c.call('daemon.status', {});
          const { successor_pid } = await c.call('daemon.restart', {}, { retry: 'never' });
          const until = Date.now() + 30_000;
          for (;;) {
            try {
              const st = await c.call('daemon.status', {}, { deadlineMs: 2000 });
              if (st.pid !== before.pid && !st.draining) {
                process.stdout.write(`holdfastd restarted: pid ${before.pid} → ${st.pid} (build ${st.build}); ${st.sessions.live} live sessions kept\n`);
                return;
              }
            } catch {
              // the handoff is under way
            }
            if (Date.now() > until) throw new HoldfastError('TIMEOUT', `the successor (pid ${successor_pid}) did not answer in 30 s; see logs/daemon.log`);
            await new Promise((r) => setTimeout(r, 50));
          }
        },
        { giveUpMs: 30_000 },
      );
    });
}
