import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';

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
});
