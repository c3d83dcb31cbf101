import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pollUntil, TestHome } from './_harness/home.js';

describe('kill -9 of the daemon mid-command (DESIGN §4.5)', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('re-adopts the session: same shell pid, and the output from the earlier offset ends in "done" with no gap', async () => {
    const c = h.client();
    const { session } = await c.call('session.open', { principal: 'p', workspace: 'ws' });
    const id = session.remote_session_id;
    const started = await c.call('session.exec', { id, command: 'sleep 3; echo done', wait_ms: 0 });
    assert.equal(started.ok, true);
    const offset = started.cmd!.outputStart;

    await h.kill9Daemon();
    await h.startDaemon();

    const c2 = h.client();
    const { session: again } = await c2.call('session.get', { id });
    assert.equal(again.state, 'running');
    assert.equal(again.shell_pid, session.shell_pid, 'shell pid unchanged');
    let text = '';
    let at = offset;
    await pollUntil('"done" in the output', async () => {
      const r = await c2.call('session.read', { id, from: at, max: 65536, wait_ms: 1000 });
      assert.equal(r.gap, false, 'no gap');
      text += Buffer.from(r.data).toString();
      at = r.next;
      return text.includes('done');
    }, 15_000);
  });
});
