import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { resolveHome } from '@holdfast/shared/paths';
import { daemonEntryPath } from '../../daemon-client.js';
import { printJson, withClient } from '../client.js';
import { DAEMON_NODE_FLAGS } from '@holdfast/shared/constants';

/** `holdfast daemon run|stop|status` (DESIGN §7). */
export function registerDaemon(program: Command): void {
  const d = program.command('daemon').description('run, stop or inspect holdfastd');
  d.command('run')
    .description('run holdfastd in the foreground (logs on stderr)')
    .action(async () => {
      const home = resolveHome();
      const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, daemonEntryPath(), 'run', '--home', home], { stdio: 'inherit' });
      const forward = (sig: NodeJS.Signals): void => {
        child.kill(sig);
      };
      process.on('SIGINT', forward);
      process.on('SIGTERM', forward);
      const code = await new Promise<number>((r) => child.on('exit', (c, s) => r(c ?? (s ? 1 : 0))));
      process.exitCode = code;
    });
  d.command('stop')
    .description('stop holdfastd; sessions keep running unless --kill-sessions')
    .option('--kill-sessions', 'also end every session')
    .action(async (o: { killSessions?: boolean }) => {
      await withClient(async (c) => {
        const st = await c.call('daemon.status', {});
        await c.call('daemon.stop', { kill_sessions: o.killSessions === true }, { retry: 'never' });
        const live = st.sessions.live;
        const sessions = o.killSessions ? (live > 0 ? ` and ending ${live} session${live === 1 ? '' : 's'}` : '') : live > 0 ? `; ${live} session${live === 1 ? '' : 's'} keep${live === 1 ? 's' : ''} running` : '; no session is running';
        process.stdout.write(`holdfastd (pid ${st.pid}) is stopping${sessions}\n`);
      });
    });
  d.command('status')
    .description('show whether holdfastd runs, its build and session counts')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      await withClient(async (c) => {
        const st = await c.call('daemon.status', {});
        if (o.json) return printJson(st);
        process.stdout.write(
          `holdfastd running: pid ${st.pid}, build ${st.build}, ${st.sessions.live} live of ${st.sessions.max_live} (${st.sessions.total} total)${st.draining ? ', draining' : ''}\nhome ${st.home}\nsocket ${st.socket}\n`,
        );
      });
    });
}
