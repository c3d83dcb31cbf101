import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pollUntil, TestHome } from './_harness/home.js';

describe('TTL tiers (DESIGN §4.3)', () => {
  const h = new TestHome({ sessions: { ttl_never_executed_s: 2, ttl_executed_s: 4, reaper_interval_ms: 250 } });
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('reaps a never-used idle session and keeps one running sleep 30', async () => {
    const c = h.client();
    const idle = await c.call('session.open', { principal: 'idle', workspace: 'ws' });
    const busy = await c.call('session.open', { principal: 'busy', workspace: 'ws' });
    const r = await c.call('session.exec', { id: busy.session.remote_session_id, command: 'sleep 30', wait_ms: 0 });
    assert.equal(r.ok, true);
    await pollUntil('idle session to be reaped', async () => {
      const { session } = await c.call('session.get', { id: idle.session.remote_session_id });
      return session.state === 'closed' && session.end_reason === 'reaped';
    }, 15_000);
    // Well past both tiers, the busy one still runs.
    await pollUntil('6 s to pass', async () => Date.now() - busy.session.created_at > 6000, 10_000, 200);
    const { session } = await c.call('session.get', { id: busy.session.remote_session_id });
    assert.equal(session.state, 'running');
    assert.equal(session.busy, true);
  });
});

describe('quota with reclaim (DESIGN §4.3)', () => {
  const h = new TestHome({ sessions: { max_live: 2 } });
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('a third open reclaims the idle never-used session; with none reclaimable it fails with QUOTA_EXCEEDED and counts', async () => {
    const c = h.client();
    const used = await c.call('session.open', { principal: 'a', workspace: 'ws' });
    await c.call('session.exec', { id: used.session.remote_session_id, command: 'true', wait_ms: 10_000 });
    const fresh = await c.call('session.open', { principal: 'b', workspace: 'ws' });
    const third = await c.call('session.open', { principal: 'c', workspace: 'ws' });
    assert.equal(third.created, true);
    const { session: reclaimed } = await c.call('session.get', { id: fresh.session.remote_session_id });
    assert.equal(reclaimed.state, 'closed');
    assert.equal(reclaimed.end_reason, 'reclaimed');
    // Now both live sessions have executed something: nothing is reclaimable.
    await c.call('session.exec', { id: third.session.remote_session_id, command: 'true', wait_ms: 10_000 });
    const err = await c.call('session.open', { principal: 'd', workspace: 'ws' }).then(
      () => null,
      (e: unknown) => e as { code: string; details?: Record<string, unknown> },
    );
    assert.ok(err, 'open must fail');
    assert.equal(err.code, 'QUOTA_EXCEEDED');
    assert.deepEqual(err.details, { live: 2, max_live: 2, busy: 0, idle_executed: 2, never_executed: 0 });
  });
});
