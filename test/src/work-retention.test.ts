import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { guardianPaths } from '@holdfast/shared/paths';
import { pollUntil, TestHome } from './_harness/home.js';
import { openSession, toolCaller } from './_harness/tools.js';

/** Retention clocks of this home: finished tasks age out after ~8.6 s, sweeps every second. */
const TASK_DAYS = 0.0001;

/**
 * Retention (issue 11, `config.yaml` `retention:`) shortened through config: old finished tasks
 * and their log files are removed by the daemon's own sweeps, a task an undelivered plan cites is
 * kept with its logs, and `holdfast doctor` shows what the store holds and what goes next.
 */
describe('retention through config (issue 11)', () => {
  const h = new TestHome({ retention: { task_days: TASK_DAYS, sweep_interval_s: 1 } });
  let call: ReturnType<typeof toolCaller>;
  let rs = '';
  before(async () => {
    await h.startDaemon();
    const c = h.client();
    call = toolCaller(c, 'p', ['session', 'execute', 'observe', 'plan']);
    rs = await openSession(c);
  });
  after(() => h.cleanup());

  const background = async (text: string): Promise<string> => {
    const r = await call('execute', { remote_session_id: rs, command: `echo ${text}`, background: true });
    const id = r.env.context.execution_task_id!;
    await pollUntil(`${text} to finish`, async () => (await call('execute', { remote_session_id: rs, action: 'attach', execution_task_id: id, yield_time_ms: 5000 })).env.data.state === 'exited', 20_000);
    return id;
  };
  const logs = (id: string): string => join(guardianPaths(h.layout, rs).tasksDir, id);

  it('removes old finished tasks with their logs and keeps the one an undelivered plan cites', async () => {
    const cited = await background('cited');
    const plan = await call('plan', { remote_session_id: rs, action: 'create', title: 'Keep evidence', goal: 'g', tasks: [{ local_id: 'a', title: 'A' }, { local_id: 'b', title: 'B' }] });
    const ids = plan.env.data.plan_task_ids as Record<string, string>;
    await call('plan', { remote_session_id: rs, action: 'advance', plan_id: plan.env.data.plan_id, plan_task_id: ids.a });
    const done = await call('plan', { remote_session_id: rs, action: 'complete', plan_id: plan.env.data.plan_id, plan_task_id: ids.a, evidence: [{ kind: 'execute', execution_task_id: cited }] });
    assert.equal(done.isError, false, done.text);
    const old = await background('old');
    assert.ok(existsSync(logs(old)), 'a finished task has its logs on disk');

    const doctor = await h.cli(['doctor', '--json']);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; detail: string; data?: Record<string, unknown> }[] }).checks;
    const store = checks.find((c) => c.name === 'store')!;
    assert.ok((store.data!.rows as { tasks: number }).tasks >= 2, store.detail);
    assert.ok((store.data!.bytes as { database: number }).database > 0);
    const retention = checks.find((c) => c.name === 'retention')!;
    assert.match(retention.detail, /next sweep .* removes \d+ tasks/);
    assert.equal((retention.data!.clocks as { task_days: number }).task_days, TASK_DAYS);

    await pollUntil('the old task to age out', async () => (await call('observe', { view: 'task', remote_session_id: rs, execution_task_id: old })).env.error?.code === 'TASK_NOT_FOUND', 30_000, 200);
    assert.equal(existsSync(logs(old)), false, 'its log files went with it');
    const kept = await call('observe', { view: 'task', remote_session_id: rs, execution_task_id: cited });
    assert.equal(kept.isError, false, 'the task an undelivered plan cites is kept');
    assert.ok(existsSync(logs(cited)), '… with its logs');
    const read = await call('plan', { remote_session_id: rs, action: 'read', plan_id: plan.env.data.plan_id });
    assert.equal((read.env.data.tasks as { evidence: { execution_task_id: string }[] }[])[0]!.evidence[0]!.execution_task_id, cited);
  });
});
