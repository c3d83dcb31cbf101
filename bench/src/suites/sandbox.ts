import { pollUntil, TestHome } from '@holdfast/test/harness';
import { toolCaller } from '@holdfast/test/harness/tools';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';

const S = 'sandbox';
const PRINCIPALS = { off: 'plain', bwrap: 'bw', landlock: 'll' } as const;

/**
 * Issue 17 measures: the cost of confining a session. One daemon, three principals — unconfined,
 * bwrap and Landlock (per-principal keys) — measured interleaved in the same run: cold open to the
 * first prompt, a foreground `true` (builtin) and `/bin/true` (a process started inside the
 * sandbox), and a background task `true` (each task is wrapped on its own).
 */
export async function sandboxSuite(): Promise<void> {
  const h = new TestHome(
    { sessions: { max_live: 64 }, security: { sandbox: { mode: 'off', principals: { bw: { mode: 'bwrap' }, ll: { mode: 'landlock' } } } } },
    { userHomeParent: '/var/tmp' },
  );
  try {
    await h.startDaemon();
    const c = h.client();
    const modes = Object.keys(PRINCIPALS) as (keyof typeof PRINCIPALS)[];
    const ready: Record<string, number[]> = { off: [], bwrap: [], landlock: [] };
    const cold: string[] = [];
    for (let i = 0; i < 10; i++) {
      for (const m of modes) {
        const t0 = performance.now();
        const { session } = await c.call('session.open', { principal: PRINCIPALS[m], workspace: 'ws', affinity: 'thread' });
        await pollUntil('shell ready', async () => (await c.call('session.get', { id: session.remote_session_id })).session.shell_ready, 10_000, 2);
        ready[m]!.push(performance.now() - t0);
        cold.push(session.remote_session_id);
      }
    }
    for (const id of cold) await c.call('session.kill', { id });
    for (const m of ['bwrap', 'landlock'] as const) {
      report({ suite: S, measure: `cold open → prompt, ${m}`, value: `p50 ${fmtMs(median(ready[m]!))} p95 ${fmtMs(percentile(ready[m]!, 95))}`, baseline: `unsandboxed p50 ${fmtMs(median(ready.off!))}`, ratio: ratio(median(ready[m]!), median(ready.off!)) });
    }

    const ids: Record<string, string> = {};
    for (const m of modes) ids[m] = (await c.call('session.open', { principal: PRINCIPALS[m], workspace: 'ws' })).session.remote_session_id;
    for (const command of ['true', '/bin/true']) {
      const ms: Record<string, number[]> = {};
      for (const m of modes) {
        ms[m] = await sample(150, async () => {
          const r = await c.call('session.exec', { id: ids[m]!, command, wait_ms: 10_000 });
          if (!r.ok || r.cmd?.exitCode !== 0) throw new Error(`${command} failed in ${m}`);
        });
      }
      for (const m of ['bwrap', 'landlock'] as const) {
        report({ suite: S, measure: `execute \`${command}\`, ${m}`, value: `p50 ${fmtMs(median(ms[m]!))} p99 ${fmtMs(percentile(ms[m]!, 99))}`, baseline: `unsandboxed p50 ${fmtMs(median(ms.off!))}`, ratio: ratio(median(ms[m]!), median(ms.off!)) });
      }
    }
    const task: Record<string, number[]> = {};
    for (const m of modes) {
      const call = toolCaller(c, PRINCIPALS[m], ['execute']);
      task[m] = await sample(40, async () => {
        const r = await call('execute', { remote_session_id: ids[m]!, command: 'true', background: true });
        const done = await call('execute', { action: 'attach', remote_session_id: ids[m]!, execution_task_id: r.env.data.execution_task_id, yield_time_ms: 10_000 });
        if (done.env.data?.exit_code !== 0) throw new Error(`background true failed in ${m}: ${done.text}`);
      }, 5);
    }
    for (const m of ['bwrap', 'landlock'] as const) {
      report({ suite: S, measure: `background task \`true\`, ${m}`, value: `p50 ${fmtMs(median(task[m]!))} p99 ${fmtMs(percentile(task[m]!, 99))}`, baseline: `unsandboxed p50 ${fmtMs(median(task.off!))}`, ratio: ratio(median(task[m]!), median(task.off!)) });
    }
  } finally {
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
