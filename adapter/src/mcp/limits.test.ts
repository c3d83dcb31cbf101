import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConcurrencyGate, RateLimiter } from './limits.js';

describe('RateLimiter (requests per minute per source address)', () => {
  it('allows a burst of perMinute, refuses the next, and refills over time', () => {
    let now = 0;
    const r = new RateLimiter(3, () => now);
    assert.deepEqual([r.take('a'), r.take('a'), r.take('a'), r.take('a')], [true, true, true, false]);
    assert.equal(r.take('b'), true, 'another address has its own budget');
    now += 20_000; // one third of a minute: one request back
    assert.equal(r.take('a'), true);
    assert.equal(r.take('a'), false);
  });
});

describe('ConcurrencyGate (requests in flight)', () => {
  it('admits up to max and frees a slot on release, once', () => {
    const g = new ConcurrencyGate(2);
    const r1 = g.tryEnter();
    const r2 = g.tryEnter();
    assert.ok(r1 && r2);
    assert.equal(g.tryEnter(), null);
    r1();
    r1();
    assert.equal(g.current, 1);
    assert.ok(g.tryEnter());
    assert.equal(g.tryEnter(), null);
  });
});
