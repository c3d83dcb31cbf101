import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAlive, pollUntil, TestHome } from './_harness/home.js';

describe('a shell that exits while no daemon runs (DESIGN §4.5)', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('is shown as exited with its exit code once the daemon is back', async () => {
    const c = h.client();
    const { session } = await c.call('session.open', { principal: 'p', workspace: 'ws' });
    const id = session.remote_session_id;
    // Give the shell a command that ends it after the daemon is gone.
    const r = await c.call('session.exec', { id, command: 'sleep 1; exit 7', wait_ms: 0 });
    assert.equal(r.ok, true);
    await h.kill9Daemon();
    await pollUntil('guardian to exit', () => !isAlive(session.guardian_pid!), 15_000);
    await h.startDaemon();
    const { session: after } = await h.client().call('session.get', { id });
    assert.equal(after.state, 'exited');
    assert.equal(after.exit_code, 7);
    assert.equal(after.end_reason, 'shell_exit');
  });
});
