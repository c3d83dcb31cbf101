import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BodyBudget, ConcurrencyGate, RateLimiter, rateBucket } from './limits.js';

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

describe('rate buckets (DESIGN §6.2: failed authentication never spends a principal’s budget)', () => {
  it('keeps unauthenticated requests, and each principal, apart on one address', () => {
    const r = new RateLimiter(2, () => 0);
    const ip = '127.0.0.1';
    assert.deepEqual([r.take(rateBucket(ip, null)), r.take(rateBucket(ip, null)), r.take(rateBucket(ip, null))], [true, true, false]);
    assert.equal(r.take(rateBucket(ip, 'owner')), true, 'the flood did not touch the owner');
    assert.equal(r.take(rateBucket(ip, 'owner')), true);
    assert.equal(r.take(rateBucket(ip, 'owner')), false);
    assert.equal(r.take(rateBucket(ip, 'ci')), true, 'another principal has its own budget');
    assert.equal(r.take(rateBucket('10.0.0.2', 'owner')), true, 'and so has the same principal from another address');
  });
});

describe('BodyBudget (request-body bytes in flight)', () => {
  it('takes while there is room, refuses without taking, and gives back', () => {
    const b = new BodyBudget(100);
    assert.equal(b.tryTake(60), true);
    assert.equal(b.tryTake(50), false);
    assert.equal(b.current, 60, 'a refused take holds nothing');
    assert.equal(b.available, 40);
    assert.equal(b.tryTake(40), true);
    b.give(60);
    assert.equal(b.current, 40);
    b.give(1000);
    assert.equal(b.current, 0, 'never below zero');
  });
});
