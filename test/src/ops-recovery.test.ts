import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_COMMAND_RULES } from '@holdfast/shared/config';
import { newId } from '@holdfast/shared/ids';
import { pollUntil, TestHome } from './_harness/home.js';
import { startExecSession, toolCaller, type ExecSession, type ToolReply } from './_harness/tools.js';

const TOOLS = ['workspace', 'session', 'execute', 'observe', 'runtime_read', 'read', 'operation_batch', 'operation_manage'];

interface OpData {
  operation_id: string;
  state: string;
  state_sequence: number;
  terminal_event_id?: number;
  waiting_step?: string;
  steps: { id: string; state: string; execution_task_id?: string; result?: { data: Record<string, unknown> } }[];
}

/**
 * Operations across a daemon crash (issue 12): `kill -9` of holdfastd while a step runs
 * `sleep; echo DONE` — the next daemon follows the task its guardian still runs and the operation
 * completes with DONE; an operation whose running step was not an execute task (and whose next
 * step never started) is `interrupted`. A step that needs the user's confirmation leaves the
 * operation `waiting_confirmation` naming it until `confirm`. Results expire with retention.
 */
describe('operations across a daemon crash (issue 12)', () => {
  // operation_days ≈ 3.5 s and a sweep every second: results expire during this file.
  const h = new TestHome({
    retention: { operation_days: 0.00004, sweep_interval_s: 1 },
    security: { commands: { confirm: [...DEFAULT_COMMAND_RULES.confirm, 'rm -rf'] } },
  });
  let s: ExecSession;
  let call: ExecSession['call'];
  const op = (r: ToolReply): OpData => r.env.data as OpData;

  before(async () => {
    s = await startExecSession(h);
    call = toolCaller(s.client, 'p', TOOLS);
  });
  after(() => h.cleanup());

  it('kill -9 of the daemon mid-batch: the execute step completes after the restart; a step not yet started is interrupted', async () => {
    const a = await call('operation_batch', {
      remote_session_id: s.rs,
      execution_mode: 'async',
      steps: [{ id: 'slow', tool: 'execute', arguments: { command: 'sleep 3; echo DONE', yield_time_ms: 0 } }],
    });
    assert.equal(a.env.status, 'accepted', a.text);
    const aId = op(a).operation_id;
    const task = await pollUntil('the step to have its task', async () => op(await call('operation_manage', { action: 'status', remote_session_id: s.rs, operation_id: aId })).steps[0]!.execution_task_id, 15_000);
    const b = await call('operation_batch', {
      remote_session_id: s.rs,
      execution_mode: 'async',
      steps: [
        { id: 'watch', tool: 'observe', arguments: { view: 'logs', execution_task_id: task, wait_ms: 20_000 } },
        { id: 'next', tool: 'read', arguments: { view: 'list', path: '' }, depends_on: ['watch'] },
      ],
    });
    const bId = op(b).operation_id;
    await pollUntil('the observe step to run', async () => op(await call('operation_manage', { action: 'status', remote_session_id: s.rs, operation_id: bId })).steps[0]!.state === 'running', 10_000);

    await h.kill9Daemon();
    await h.startDaemon();
    call = toolCaller(h.client(), 'p', TOOLS);

    const other = await call('operation_manage', { action: 'status', remote_session_id: s.rs, operation_id: bId });
    assert.equal(op(other).state, 'interrupted', other.text);
    assert.deepEqual(op(other).steps.map((x) => x.state), ['interrupted', 'interrupted']);

    const done = await call('operation_manage', { action: 'wait', remote_session_id: s.rs, operation_id: aId });
    assert.equal(op(done).state, 'succeeded', done.text);
    assert.equal(done.env.status, 'succeeded');
    assert.match(String(op(done).steps[0]!.result!.data.output), /DONE/);
    assert.equal(typeof op(done).terminal_event_id, 'number');
  });

  it('a step that needs confirmation leaves the operation waiting_confirmation with the step named; confirm runs it', async () => {
    mkdirSync(join(h.workspace, 'junk', 'deep'), { recursive: true });
    const r = await call('operation_batch', {
      remote_session_id: s.rs,
      steps: [
        { id: 'list', tool: 'read', arguments: { view: 'list', path: '' } },
        { id: 'clean', tool: 'execute', arguments: { command: 'rm -rf junk' }, depends_on: ['list'] },
      ],
    });
    assert.equal(r.env.status, 'waiting_confirmation', r.text);
    assert.equal(op(r).waiting_step, 'clean');
    assert.match(r.text, /clean/);
    assert.ok(r.env.actions.some((x) => x.tool === 'operation_manage' && x.arguments.action === 'confirm'));
    assert.ok(existsSync(join(h.workspace, 'junk')), 'nothing ran before the confirmation');
    const confirmed = await call('operation_manage', { action: 'confirm', remote_session_id: s.rs, operation_id: op(r).operation_id });
    assert.equal(op(confirmed).state, 'succeeded', confirmed.text);
    assert.equal(existsSync(join(h.workspace, 'junk')), false);
  });

  it('roles: a viewer sees an operation but cannot cancel or confirm it', async () => {
    const r = await call('operation_batch', { remote_session_id: s.rs, steps: [{ id: 'one', tool: 'read', arguments: { view: 'list', path: '' } }] });
    const grant = await call('session', { action: 'grant', remote_session_id: s.rs, principal: 'viewer-q', role: 'viewer' });
    assert.equal(grant.isError, false, grant.text);
    const q = toolCaller(h.client(), 'viewer-q', TOOLS);
    const seen = await q('operation_manage', { action: 'status', remote_session_id: s.rs, operation_id: op(r).operation_id });
    assert.equal(op(seen).state, 'succeeded');
    for (const action of ['cancel', 'confirm']) {
      const refused = await q('operation_manage', { action, remote_session_id: s.rs, operation_id: op(r).operation_id });
      assert.equal(refused.env.error?.code, 'ROLE_REQUIRED', `${action}: ${refused.text}`);
    }
    const stranger = await toolCaller(h.client(), 'stranger', TOOLS)('operation_manage', { action: 'status', remote_session_id: s.rs, operation_id: op(r).operation_id });
    assert.equal(stranger.env.error?.code, 'SESSION_NOT_FOUND');
  });

  it('results expire with retention: the id then answers OPERATION_RESULT_EXPIRED, a repeat never reruns', async () => {
    const args = { remote_session_id: s.rs, operation_id: newId('operation'), steps: [{ id: 'one', tool: 'execute', arguments: { command: 'echo once >> once.txt' } }] };
    const r = await call('operation_batch', args);
    const id = op(r).operation_id;
    const expired = await pollUntil('the results to expire', async () => {
      const st = await call('operation_manage', { action: 'result', remote_session_id: s.rs, operation_id: id });
      return st.env.error?.code === 'OPERATION_RESULT_EXPIRED' ? st : null;
    }, 30_000, 250);
    assert.equal(expired.isError, true);
    const again = await call('operation_batch', args);
    assert.equal(again.env.error?.code, 'OPERATION_RESULT_EXPIRED');
    assert.equal(readFileSync(join(h.workspace, 'once.txt'), 'utf8'), 'once\n');
  });
});
