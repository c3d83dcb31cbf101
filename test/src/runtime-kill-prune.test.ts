import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pollUntil, processTable, TestHome } from './_harness/home.js';

const ORPHAN = `python3 -c "import subprocess; subprocess.Popen(['sleep','1000'])"`;

function sleepers(): number[] {
  return processTable()
    .filter((p) => p.cmd === 'sleep 1000')
    .map((p) => p.pid);
}

describe('ending a session leaves no process behind (DESIGN §4.4)', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  async function sessionWithOrphan(principal: string): Promise<{ id: string; orphan: number }> {
    const c = h.client();
    const before = new Set(sleepers());
    const { session } = await c.call('session.open', { principal, workspace: 'ws' });
    const r = await c.call('session.exec', { id: session.remote_session_id, command: ORPHAN, wait_ms: 10_000 });
    assert.equal(r.cmd?.state, 'exited', 'the python parent exits at once');
    const orphan = await pollUntil('the orphaned sleep to appear', () => sleepers().find((p) => !before.has(p)), 5000);
    return { id: session.remote_session_id, orphan };
  }

  it('after `holdfast kill`, the sleep that outlived its parent is gone', async () => {
    const { id, orphan } = await sessionWithOrphan('k');
    const r = await h.cli(['kill', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`killed ${id}`));
    assert.ok(!sleepers().includes(orphan), `sleep 1000 (pid ${orphan}) must be dead after kill`);
    const { session } = await h.client().call('session.get', { id });
    assert.equal(session.state, 'closed');
    const again = await h.cli(['kill', id]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /had already ended; nothing to kill/);
  });

  it('after `holdfast prune --idle-seconds 0`, the same holds; a busy session is kept', async () => {
    const { id, orphan } = await sessionWithOrphan('p');
    const c = h.client();
    const busy = await c.call('session.open', { principal: 'busy', workspace: 'ws' });
    await c.call('session.exec', { id: busy.session.remote_session_id, command: 'sleep 60', wait_ms: 0 });
    const r = await h.cli(['prune', '--idle-seconds', '0', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { pruned: string[]; kept_busy: string[] };
    assert.ok(out.pruned.includes(id));
    assert.ok(out.kept_busy.includes(busy.session.remote_session_id));
    assert.ok(!sleepers().includes(orphan), `sleep 1000 (pid ${orphan}) must be dead after prune`);
    const { session } = await c.call('session.get', { id: busy.session.remote_session_id });
    assert.equal(session.state, 'running');
  });
});
