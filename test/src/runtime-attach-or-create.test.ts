import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { toolCaller } from './_harness/tools.js';

describe('attach-or-create (DESIGN §4.2)', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('two concurrent opens with the same key give one guardian; another principal gets another', async () => {
    const c = h.client();
    const [a, b] = await Promise.all([
      c.call('session.open', { principal: 'alice', workspace: 'ws' }),
      c.call('session.open', { principal: 'alice', workspace: 'ws' }),
    ]);
    assert.equal(a.session.remote_session_id, b.session.remote_session_id);
    assert.equal(a.session.guardian_pid, b.session.guardian_pid);
    assert.equal([a.created, b.created].filter(Boolean).length, 1, 'exactly one open created the session');
    const other = await c.call('session.open', { principal: 'bob', workspace: 'ws' });
    assert.notEqual(other.session.remote_session_id, a.session.remote_session_id);
    assert.notEqual(other.session.guardian_pid, a.session.guardian_pid);
    const { sessions } = await c.call('session.list', {});
    assert.equal(sessions.length, 2);
  });

  it('resuming by id works only for the owner; shortened ids are refused', async () => {
    const c = h.client();
    const a = await c.call('session.open', { principal: 'alice', workspace: 'ws' });
    const id = a.session.remote_session_id;
    const again = await c.call('session.open', { principal: 'alice', remote_session_id: id });
    assert.equal(again.session.shell_pid, a.session.shell_pid);
    await assert.rejects(c.call('session.open', { principal: 'bob', remote_session_id: id }), /SESSION_NOT_FOUND|no session/);
    await assert.rejects(c.call('session.open', { principal: 'alice', remote_session_id: id.slice(0, 20) }), /not a remote_session_id/);
  });

  it('thread affinity creates a new session each time', async () => {
    const c = h.client();
    const a = await c.call('session.open', { principal: 'carol', workspace: 'ws', affinity: 'thread' });
    const b = await c.call('session.open', { principal: 'carol', workspace: 'ws', affinity: 'thread' });
    assert.notEqual(a.session.remote_session_id, b.session.remote_session_id);
  });

  it('resuming a closed session by id is a SESSION_EXITED failure whose action opens a new session', async () => {
    const call = toolCaller(h.client(), 'dave', ['session', 'execute']);
    const opened = await call('session', { workspace: 'ws' });
    const id = opened.env.data.remote_session_id as string;
    const closed = await call('session', { action: 'close', remote_session_id: id });
    assert.equal(closed.env.status, 'succeeded', closed.text);
    const r = await call('session', { action: 'open', remote_session_id: id });
    assert.equal(r.isError, true);
    assert.equal(r.env.status, 'failed');
    assert.equal(r.env.type, 'session.exited');
    assert.deepEqual({ code: r.env.error?.code, retryable: r.env.error?.retryable }, { code: 'SESSION_EXITED', retryable: false });
    assert.match(r.env.error!.message, /open a new session/);
    assert.equal(r.env.data.guide, undefined, 'no usage guide (it promises that nothing is lost)');
    assert.ok(!/nothing is lost/.test(JSON.stringify(r.env) + r.text));
    assert.equal(r.env.data.state, 'closed');
    const next = r.env.actions[0]!;
    assert.deepEqual(next, { tool: 'session', arguments: { action: 'open', workspace: 'ws' }, reason: next.reason });
    const fresh = await call(next.tool, next.arguments);
    assert.equal(fresh.env.status, 'succeeded', fresh.text);
    assert.notEqual(fresh.env.data.remote_session_id, id);
  });
});
