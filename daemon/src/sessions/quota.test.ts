import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxLivePerPrincipal, pickExpired, pickReclaimable, quotaCounts, type LiveSessionFacts } from './quota.js';

const f = (id: string, o: Partial<LiveSessionFacts>): LiveSessionFacts => ({ id, principal: 'p', busy: false, everExecuted: false, used: false, idleMs: 0, lastActivityAt: 0, reachable: true, ...o });

describe('quota rules', () => {
  it('reclaims the least recently active never-used idle session', () => {
    const facts = [f('a', { lastActivityAt: 5 }), f('b', { lastActivityAt: 2 }), f('c', { everExecuted: true, lastActivityAt: 1 })];
    assert.equal(pickReclaimable(facts, 'p'), 'b');
  });
  it('never reclaims busy, executed or unreachable sessions', () => {
    const facts = [f('a', { busy: true }), f('b', { everExecuted: true }), f('c', { reachable: false })];
    assert.equal(pickReclaimable(facts, 'p'), null);
    assert.deepEqual(quotaCounts(facts, 3), { live: 3, max_live: 3, busy: 1, idle_executed: 1, never_executed: 1 });
  });
  it("never reclaims another principal's used session, only its own or a never-used one (issue 18)", () => {
    const facts = [f('theirs-used', { principal: 'q', used: true, lastActivityAt: 1 }), f('mine', { used: true, lastActivityAt: 5 }), f('theirs-new', { principal: 'q', lastActivityAt: 9 })];
    assert.equal(pickReclaimable(facts, 'p'), 'mine');
    assert.equal(pickReclaimable(facts, 'q'), 'theirs-used');
    assert.equal(pickReclaimable(facts.slice(0, 1), 'p'), null);
    assert.equal(pickReclaimable([facts[0]!, facts[2]!], 'p'), 'theirs-new');
  });
  it('expires by tier and keeps busy sessions', () => {
    const ttl = (e: boolean) => (e ? 4000 : 2000);
    const facts = [f('new', { idleMs: 2500 }), f('used', { everExecuted: true, idleMs: 2500 }), f('busy', { busy: true, idleMs: 99999 })];
    assert.deepEqual(pickExpired(facts, ttl), ['new']);
    assert.deepEqual(pickExpired(facts, ttl, 0), ['new', 'used']);
  });
  it('a principal may hold half of max_live (rounded up) unless configured, never more than max_live', () => {
    assert.equal(maxLivePerPrincipal(32, undefined), 16);
    assert.equal(maxLivePerPrincipal(3, undefined), 2);
    assert.equal(maxLivePerPrincipal(1, undefined), 1);
    assert.equal(maxLivePerPrincipal(32, 5), 5);
    assert.equal(maxLivePerPrincipal(4, 10), 4);
  });
});
