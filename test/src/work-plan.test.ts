import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isAlive, pollUntil } from './_harness/home.js';
import { callTool, openSession, useStdioSession } from './_harness/mcp-adapter.js';

/**
 * Plans, progress and activity (issue 11) through the official MCP client over stdio, with a real
 * daemon and shell: dependencies gate `advance`, evidence is checked against what the session
 * really ran (exit codes recorded), another session's task is refused, `deliver` waits for every
 * task, a stale `replan` changes nothing, and the plan reads back identical after `kill -9` of the
 * daemon. Progress is not a heartbeat; activity turns live in `_meta` only.
 */
describe('plan, progress and activity over MCP (issue 11)', () => {
  const f = useStdioSession(async (home) => {
    mkdirSync(join(home.home, 'ws2'));
    await home.client().call('workspace.register', { path: join(home.home, 'ws2'), name: 'ws2' });
  });
  const h = f.h;
  const plan = (args: Record<string, unknown>) => callTool(f.client, 'plan', { remote_session_id: f.rs, ...args });
  const exec = async (command: string, extra: Record<string, unknown> = {}) => {
    const r = await callTool(f.client, 'execute', { remote_session_id: f.rs, command, yield_time_ms: 30_000, ...extra });
    assert.equal(r.isError, false, r.text);
    return r;
  };

  it('gates advance on dependencies, checks evidence, delivers only when done, and survives kill -9 of the daemon', async () => {
    const created = await plan({
      action: 'create',
      title: 'Fix the parser',
      goal: 'CRLF input parses',
      tasks: [
        { local_id: 'repro', title: 'Reproduce', depends_on: [] },
        { local_id: 'fix', title: 'Fix', acceptance: 'tests pass', depends_on: ['repro'] },
        { local_id: 'docs', title: 'Document', depends_on: [] },
      ],
    });
    assert.equal(created.isError, false, created.text);
    const p = created.env.data!;
    const planId = p.plan_id as string;
    const ids = p.plan_task_ids as Record<string, string>;
    assert.match(planId, /^pl_[0-9A-Z]{26}$/);
    assert.match(ids.fix!, /^pt_[0-9A-Z]{26}$/);
    assert.equal(p.plan_revision, 1);
    assert.deepEqual((p.tasks as { depends_on: string[] }[])[1]!.depends_on, [ids.repro]);

    const early = await plan({ action: 'advance', plan_id: planId, plan_task_id: ids.fix });
    assert.equal(early.env.error?.code, 'PLAN_DEPENDENCIES_OPEN');
    assert.equal(early.env.actions[0]?.arguments.plan_task_id, ids.repro, 'the refusal says what to start first');

    assert.equal((await plan({ action: 'advance', plan_id: planId, plan_task_id: ids.repro })).isError, false);
    // The call names its plan step: the step is in its result's context.
    const failing = await exec('false', { plan_id: planId, plan_task_id: ids.repro });
    assert.equal(failing.env.data!.exit_code, 1);
    assert.equal(failing.env.context.plan_id, planId);
    assert.equal(failing.env.context.plan_task_id, ids.repro);
    const taskId = failing.env.context.execution_task_id!;

    // Another session's task is refused (the session of the same principal on ws2).
    const other = (await openSession(f.client, { workspace: 'ws2' })).id;
    const foreign = await callTool(f.client, 'execute', { remote_session_id: other, command: 'true', yield_time_ms: 30_000 });
    const foreignTask = foreign.env.context.execution_task_id!;
    const refused = await plan({ action: 'complete', plan_id: planId, plan_task_id: ids.repro, evidence: [{ kind: 'execute', execution_task_id: foreignTask }] });
    assert.equal(refused.env.error?.code, 'EVIDENCE_INVALID');
    const unknown = await plan({ action: 'complete', plan_id: planId, plan_task_id: ids.repro, evidence: [{ kind: 'edit', edit_id: 'ed_01ARZ3NDEKTSV4RRFFQ69G5FAV' }] });
    assert.equal(unknown.env.error?.code, 'EVIDENCE_INVALID');
    const noEvidence = await plan({ action: 'complete', plan_id: planId, plan_task_id: ids.repro });
    assert.equal(noEvidence.env.error?.code, 'BAD_REQUEST');
    // Plan ids of another session are refused on any tool.
    const wrongPlan = await callTool(f.client, 'execute', { remote_session_id: other, command: 'true', plan_id: planId });
    assert.equal(wrongPlan.env.error?.code, 'PLAN_NOT_FOUND');
    // Empty ids: a plan action says which id it needs; an empty link on another tool is no link.
    const empty = await plan({ action: 'advance', plan_id: '', plan_task_id: '' });
    assert.equal(empty.env.error?.code, 'BAD_REQUEST', empty.text);
    assert.match(empty.env.error!.message, /needs plan_task_id/);
    const emptyLink = await callTool(f.client, 'execute', { remote_session_id: other, command: 'true', plan_id: '', plan_task_id: '' });
    assert.equal(emptyLink.env.status, 'succeeded', emptyLink.text);

    const done = await plan({ action: 'complete', plan_id: planId, plan_task_id: ids.repro, evidence: [{ kind: 'execute', execution_task_id: taskId }, { kind: 'note', text: 'fails on CRLF' }] });
    assert.equal(done.isError, false, done.text);
    const ev = (done.env.data!.task as { evidence: { kind: string; exit_code?: number; execution_task_id?: string }[] }).evidence;
    assert.deepEqual(ev.map((e) => [e.kind, e.exit_code]), [['execute', 1], ['note', undefined]], 'the exit code of the cited task is recorded');

    const early2 = await plan({ action: 'deliver', plan_id: planId });
    assert.equal(early2.env.error?.code, 'PLAN_NOT_DELIVERABLE');
    assert.equal((await plan({ action: 'advance', plan_id: planId, plan_task_id: ids.fix })).isError, false, 'the dependency is completed now');
    const blocked = await plan({ action: 'block', plan_id: planId, plan_task_id: ids.docs, reason: 'waiting for review' });
    assert.equal((blocked.env.data!.task as { state: string }).state, 'blocked');
    const ok = await exec('true');
    assert.equal((await plan({ action: 'complete', plan_id: planId, plan_task_id: ids.fix, evidence: [{ kind: 'execute', execution_task_id: ok.env.context.execution_task_id }] })).isError, false);

    // replan with a stale revision changes nothing.
    const before = (await plan({ action: 'read', plan_id: planId })).env.data!;
    const stale = await plan({ action: 'replan', plan_id: planId, plan_revision: 1, drop: [ids.docs] });
    assert.equal(stale.env.error?.code, 'PLAN_REVISION_CONFLICT');
    assert.equal(stale.env.actions[0]?.arguments.action, 'read', 'the conflict says to re-read the plan');
    assert.deepEqual((await plan({ action: 'read', plan_id: planId })).env.data, before, 'the plan is unchanged');
    const dropped = await plan({ action: 'replan', plan_id: planId, plan_revision: before.plan_revision, drop: [ids.docs] });
    assert.equal(dropped.isError, false, dropped.text);

    const delivered = await plan({ action: 'deliver', plan_id: planId });
    assert.equal(delivered.isError, false, delivered.text);
    assert.equal(delivered.env.data!.state, 'delivered');
    assert.equal((delivered.env.data!.summary as { evidence_items: number }).evidence_items, 3);

    const stored = (await plan({ action: 'read', plan_id: planId })).env.data;
    const daemonPid = h.daemonPid()!;
    await h.kill9Daemon();
    assert.ok(!isAlive(daemonPid));
    // The stdio adapter starts a new daemon by itself; the plan reads back identical.
    const again = await pollUntil('the plan to read back after kill -9', async () => {
      const r = await plan({ action: 'read', plan_id: planId });
      return r.isError ? null : r.env.data;
    }, 20_000);
    assert.deepEqual(again, stored);
  });

  it('progress is stored, not a heartbeat, and comes back with session(open); completed needs results', async () => {
    const report = (args: Record<string, unknown>) => callTool(f.client, 'progress', { remote_session_id: f.rs, ...args });
    const first = await report({ status: 'milestone', current: 'parser fixed' });
    assert.equal(first.env.data!.recorded, true);
    const repeat = await report({ status: 'milestone', current: 'parser fixed' });
    assert.equal(repeat.env.data!.recorded, false, 'the same status and text within 10 s is not recorded again');
    assert.equal((await report({ status: 'completed', current: 'done' })).env.error?.code, 'BAD_REQUEST');
    assert.equal((await report({ status: 'completed', current: 'done', result: ['npm test: 12 passed'] })).env.data!.recorded, true);
    const resumed = await openSession(f.client, { remote_session_id: f.rs });
    assert.deepEqual((resumed.env.data!.progress as { status: string; result: string[] }).result, ['npm test: 12 passed']);
    const events = await callTool(f.client, 'observe', { view: 'history', remote_session_id: f.rs, tool: 'progress', status: 'succeeded', limit: 200 });
    assert.equal((events.env.data!.events as unknown[]).length, 2, 'one event per recorded report, none for the repeat');
  });

  it('activity: intent starts a turn; the stored snapshot is in _meta, never in structuredContent; bad activity is refused', async () => {
    const call = (args: Record<string, unknown>) => f.client.callTool({ name: 'read', arguments: { remote_session_id: f.rs, view: 'list', ...args } }) as Promise<{ structuredContent: Record<string, unknown>; _meta?: Record<string, unknown>; isError?: boolean }>;
    const a = await call({ activity: { intent: 'find the parser', hypothesis: 'it is in src' } });
    const snapA = a._meta?.['holdfast/activity'] as Record<string, unknown>;
    assert.ok(snapA, '_meta carries the snapshot');
    assert.match(snapA.turn_id as string, /^tn_/);
    assert.equal(snapA.intent, 'find the parser');
    assert.equal(typeof snapA.sequence, 'number');
    assert.deepEqual(snapA.call, { tool: 'read', action: 'list', request_id: (snapA.call as { request_id: string }).request_id });
    assert.ok(!JSON.stringify(a.structuredContent).includes('find the parser'), 'never in structuredContent');
    const b = await call({ activity: { conclusion: 'it is in lib' } });
    const snapB = b._meta?.['holdfast/activity'] as Record<string, unknown>;
    assert.equal(snapB.turn_id, snapA.turn_id, 'no intent: same turn');
    assert.equal(snapB.intent, 'find the parser');
    assert.equal(snapB.conclusion, 'it is in lib');
    assert.deepEqual(snapB.changed, ['conclusion']);
    assert.ok((snapB.sequence as number) > (snapA.sequence as number));
    const c = await call({ activity: { intent: 'write the fix' } });
    const snapC = c._meta?.['holdfast/activity'] as Record<string, unknown>;
    assert.notEqual(snapC.turn_id, snapA.turn_id, 'a new intent starts a new turn');
    assert.equal(snapC.conclusion, undefined, 'a new turn starts empty');
    const none = await call({});
    assert.equal(none._meta?.['holdfast/activity'], undefined, 'no activity, no snapshot: nothing is invented');
    const bad = await call({ activity: { mood: 'good' } });
    assert.equal(bad.isError, true);
    assert.equal((bad.structuredContent.error as { code: string }).code, 'BAD_REQUEST');
  });
});
