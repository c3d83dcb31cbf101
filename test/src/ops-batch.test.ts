import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newId } from '@holdfast/shared/ids';
import type { Client } from '@modelcontextprotocol/client';
import { pollUntil, processTable, TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * operation_batch / operation_manage through a real adapter and the official client (issue 12):
 * a dependency graph with concurrent reads, ordered dependents, a failure that skips its
 * dependent; a cycle refused with nothing run; a repeat of the same run_id + operation_id after
 * the first answer was lost (adapter killed mid-call) runs nothing twice; cancel returns once the
 * step's process is gone.
 */
describe('operation_batch and operation_manage (issue 12)', () => {
  const h = new TestHome();
  let adapter: AdapterProcess;
  let client: Client;
  let rs = '';

  before(async () => {
    writeFileSync(join(h.workspace, 'a.txt'), 'alpha\n');
    writeFileSync(join(h.workspace, 'b.txt'), 'beta\n');
    await h.startDaemon();
    adapter = await startAdapter(h);
    client = await httpClient(adapter.url, ownerToken(h), 'legacy');
    rs = (await openSession(client, { workspace: 'ws' })).id;
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await adapter?.stop();
    await h.cleanup();
  });

  it('a 6-step batch: the two reads overlap, dependents wait for them, a failed step skips its dependent', async () => {
    const steps = [
      { id: 'r1', tool: 'read', arguments: { path: 'a.txt' } },
      { id: 'r2', tool: 'read', arguments: { path: 'b.txt' } },
      { id: 'x1', tool: 'execute', arguments: { command: 'cat a.txt b.txt > c.txt && echo built' }, depends_on: ['r1', 'r2'] },
      { id: 'e1', tool: 'edit', arguments: { edits: [{ operation: 'create', path: 'notes.md', content: 'after x1\n' }] }, depends_on: ['x1'] },
      { id: 'f1', tool: 'execute', arguments: { command: 'exit 3', background: true } },
      { id: 's1', tool: 'read', arguments: { path: 'a.txt' }, depends_on: ['f1'] },
    ];
    const { env, isError, text } = await callTool(client, 'operation_batch', { remote_session_id: rs, steps, yield_time_ms: 60_000 });
    assert.equal(isError, false, text);
    assert.equal(env.status, 'completed_with_issues', text);
    const data = env.data as { operation_id: string; state: string; terminal_event_id: number; steps: { id: string; state: string; started_at: number; ended_at: number; result?: { status: string; data: Record<string, unknown> } }[] };
    assert.match(data.operation_id, /^op_/);
    assert.equal(typeof data.terminal_event_id, 'number');
    const s = Object.fromEntries(data.steps.map((x) => [x.id, x]));
    assert.deepEqual(
      Object.fromEntries(data.steps.map((x) => [x.id, x.state])),
      { r1: 'succeeded', r2: 'succeeded', x1: 'succeeded', e1: 'succeeded', f1: 'failed', s1: 'skipped' },
    );
    // The two independent reads ran at the same time; x1 after both, e1 after x1.
    assert.ok(s.r1!.started_at <= s.r2!.ended_at && s.r2!.started_at <= s.r1!.ended_at, 'r1 and r2 overlap');
    assert.ok(s.x1!.started_at >= Math.max(s.r1!.ended_at, s.r2!.ended_at), 'x1 waits for both reads');
    assert.ok(s.e1!.started_at >= s.x1!.ended_at, 'e1 waits for x1');
    assert.equal(readFileSync(join(h.workspace, 'c.txt'), 'utf8'), 'alpha\nbeta\n');
    assert.equal(readFileSync(join(h.workspace, 'notes.md'), 'utf8'), 'after x1\n');
    assert.match(String(s.x1!.result!.data.output), /built/);
    assert.equal(s.f1!.result!.data.exit_code, 3);
    assert.equal(s.s1!.result, undefined);

    // Status: states and sequences only; result: the results, paged.
    const st = await callTool(client, 'operation_manage', { action: 'status', remote_session_id: rs, operation_id: data.operation_id });
    assert.equal(st.env.status, 'completed_with_issues');
    const stSteps = (st.env.data as { state_sequence: number; steps: { state_sequence: number; result?: unknown }[] }).steps;
    assert.ok(stSteps.every((x) => x.result === undefined && x.state_sequence > 1));
    const many = await callTool(client, 'operation_manage', { action: 'status', remote_session_id: rs, operation_ids: [data.operation_id, newId('operation')] });
    const ops = (many.env.data as { operations: { state?: string; error?: { code: string } }[] }).operations;
    assert.equal(ops[0]!.state, 'completed_with_issues');
    assert.equal(ops[1]!.error!.code, 'OPERATION_NOT_FOUND');
    const unknown = await callTool(client, 'operation_manage', { action: 'result', remote_session_id: rs, operation_id: newId('operation') });
    assert.equal(unknown.env.error?.code, 'OPERATION_NOT_FOUND');

    // The steps are ordinary calls: each has its own event, tagged with the operation.
    const history = await callTool(client, 'observe', { view: 'history', remote_session_id: rs, tool: 'read', limit: 200 });
    const events = (history.env.data as { events: { data: { operation_id?: string; step_id?: string } }[] }).events;
    assert.deepEqual(events.filter((e) => e.data.operation_id === data.operation_id).map((e) => e.data.step_id).sort(), ['r1', 'r2']);
  });

  it('independent foreground execute steps take turns on the one terminal, in request order, while reads run beside them', async () => {
    // Three rounds: before the fix the second command met the first one still running about half
    // of the time (COMMAND_ALREADY_RUNNING), so one round could pass by luck.
    for (let round = 0; round < 3; round++) {
      const steps = [
        { id: 'c1', tool: 'execute', arguments: { command: `sleep 0.3; echo one${round}` } },
        { id: 'c2', tool: 'execute', arguments: { command: '(exit 4)' } },
        { id: 'c3', tool: 'execute', arguments: { command: `echo three${round}` } },
        { id: 'r1', tool: 'read', arguments: { path: 'a.txt' } },
      ];
      const { env, isError, text } = await callTool(client, 'operation_batch', { remote_session_id: rs, steps, yield_time_ms: 60_000 });
      assert.equal(isError, false, text);
      const data = env.data as { steps: { id: string; state: string; started_at: number; ended_at: number; error?: string; result?: { data: Record<string, unknown> } }[] };
      const s = Object.fromEntries(data.steps.map((x) => [x.id, x]));
      // c2 failing does not skip c3: a turn is not a dependency.
      assert.deepEqual(Object.fromEntries(data.steps.map((x) => [x.id, x.state])), { c1: 'succeeded', c2: 'failed', c3: 'succeeded', r1: 'succeeded' }, text);
      assert.equal(s.c2!.result!.data.exit_code, 4, text);
      assert.match(String(s.c1!.result!.data.output), new RegExp(`one${round}`));
      assert.match(String(s.c3!.result!.data.output), new RegExp(`three${round}`));
      assert.ok(s.c2!.started_at >= s.c1!.ended_at && s.c3!.started_at >= s.c2!.ended_at, 'commands ran one after the other, in request order');
      assert.ok(s.r1!.started_at < s.c1!.ended_at, 'the read did not wait for the commands');
    }
  });

  it('a cyclic batch, an unknown dependency and a refused tool are rejected before anything runs', async () => {
    const marker = join(h.workspace, 'cycle-ran');
    const cyclic = await callTool(client, 'operation_batch', {
      remote_session_id: rs,
      steps: [
        { id: 'a', tool: 'execute', arguments: { command: `touch ${marker}` }, depends_on: ['b'] },
        { id: 'b', tool: 'execute', arguments: { command: `touch ${marker}` }, depends_on: ['a'] },
        { id: 'c', tool: 'execute', arguments: { command: `touch ${marker}` } },
      ],
    });
    assert.equal(cyclic.isError, true);
    assert.equal(cyclic.env.error?.code, 'BAD_REQUEST');
    assert.match(cyclic.env.error!.message, /cycle/);
    const unknownDep = await callTool(client, 'operation_batch', { remote_session_id: rs, steps: [{ id: 'c', tool: 'execute', arguments: { command: `touch ${marker}` }, depends_on: ['zz'] }] });
    assert.match(unknownDep.env.error!.message, /"zz"/);
    const nested = await callTool(client, 'operation_batch', { remote_session_id: rs, steps: [{ id: 'c', tool: 'execute', arguments: { command: `touch ${marker}` } }, { id: 'n', tool: 'operation_batch', arguments: { steps: [] } }] });
    assert.match(nested.env.error!.message, /cannot be a batch step/);
    assert.equal(existsSync(marker), false, 'no step ran');
  });

  it('the same run_id + operation_id sent again after the adapter died mid-call returns the original operation; the command ran once', async () => {
    const operationId = newId('operation');
    const args = {
      remote_session_id: rs,
      run_id: 'run-1',
      operation_id: operationId,
      yield_time_ms: 60_000,
      steps: [{ id: 'append', tool: 'execute', arguments: { command: 'echo line >> appended.txt; sleep 1.5; echo appended' } }],
    };
    const first = callTool(client, 'operation_batch', args).then(
      () => 'answered',
      () => 'lost',
    );
    await pollUntil('the command to run', () => existsSync(join(h.workspace, 'appended.txt')), 15_000);
    await adapter.kill9();
    await client.close().catch(() => undefined);
    assert.equal(await first, 'lost', 'the first answer never arrived');
    adapter = await startAdapter(h);
    client = await httpClient(adapter.url, ownerToken(h), 'legacy');
    const again = await callTool(client, 'operation_batch', args);
    assert.equal(again.env.context.operation_id, operationId);
    assert.equal(again.env.hints.idempotent_replay, true);
    assert.equal(again.env.status, 'succeeded', again.text);
    assert.equal(readFileSync(join(h.workspace, 'appended.txt'), 'utf8'), 'line\n', 'the command ran once');
    const conflict = await callTool(client, 'operation_batch', { ...args, steps: [{ id: 'append', tool: 'execute', arguments: { command: 'echo other >> appended.txt' } }] });
    assert.equal(conflict.env.error?.code, 'IDEMPOTENCY_CONFLICT');
    assert.equal(readFileSync(join(h.workspace, 'appended.txt'), 'utf8'), 'line\n');
  });

  it('cancel returns only once the running sleep is gone', async () => {
    const sleeper = 'sleep 311.75';
    const started = await callTool(client, 'operation_batch', {
      remote_session_id: rs,
      execution_mode: 'async',
      steps: [
        { id: 'long', tool: 'execute', arguments: { command: sleeper } },
        { id: 'after', tool: 'read', arguments: { path: 'a.txt' }, depends_on: ['long'] },
      ],
    });
    assert.equal(started.env.status, 'accepted', started.text);
    const id = started.env.context.operation_id!;
    await pollUntil('the sleep to run', () => processTable().some((p) => p.cmd === sleeper), 15_000);
    const cancelled = await callTool(client, 'operation_manage', { action: 'cancel', remote_session_id: rs, operation_id: id });
    assert.equal(processTable().some((p) => p.cmd === sleeper), false, 'the sleep is gone when cancel returns');
    assert.equal((cancelled.env.data as { state: string }).state, 'cancelled', cancelled.text);
    assert.deepEqual((cancelled.env.data as { steps: { state: string }[] }).steps.map((x) => x.state), ['cancelled', 'cancelled']);
    // Terminal: it never changes again.
    const later = await callTool(client, 'operation_manage', { action: 'wait', remote_session_id: rs, operation_id: id });
    assert.equal((later.env.data as { state: string }).state, 'cancelled');
  });
});
