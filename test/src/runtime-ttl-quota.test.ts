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

describe('per-principal live-session quota (sessions.max_live_per_principal)', () => {
  const h = new TestHome({ sessions: { max_live: 4, max_live_per_principal: 2 } });
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('one principal cannot take every session: at its limit its own never-used session is reclaimed, then it is refused with the limit named; others still open', async () => {
    const c = h.client();
    const open = (principal: string) => c.call('session.open', { principal, workspace: 'ws', affinity: 'thread' });
    const refused = (principal: string) =>
      open(principal).then(
        () => null,
        (e: unknown) => e as { code: string; message: string; details?: Record<string, unknown> },
      );
    const g1 = await open('greedy');
    await c.call('session.exec', { id: g1.session.remote_session_id, command: 'true', wait_ms: 10_000 });
    const g2 = await open('greedy'); // never executed
    // At its limit: its own never-executed session makes room.
    const g3 = await open('greedy');
    assert.equal(g3.created, true);
    assert.equal((await c.call('session.get', { id: g2.session.remote_session_id })).session.end_reason, 'reclaimed');
    await c.call('session.exec', { id: g3.session.remote_session_id, command: 'true', wait_ms: 10_000 });
    const err = await refused('greedy');
    assert.ok(err, 'a third live session of one principal must be refused while the daemon has room');
    assert.equal(err.code, 'QUOTA_EXCEEDED');
    assert.match(err.message, /max_live_per_principal = 2/);
    assert.equal(err.details?.max_live_per_principal, 2);
    assert.equal(err.details?.live_for_principal, 2);
    // The rest of the daemon's capacity is still there for someone else.
    const other = await open('modest');
    assert.equal(other.created, true);
    assert.equal((await c.call('session.get', { id: g1.session.remote_session_id })).session.state, 'running');
  });
});
