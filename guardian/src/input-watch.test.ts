import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputWatch } from './input-watch.js';

/**
 * A hand-cranked clock and timer queue: `advance(ms)` runs every timer due by then, in order,
 * awaiting the checks they start, so the schedule is read off exactly (no real time passes).
 */
class ManualTime {
  now = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  set = (fn: () => void, ms: number): unknown => {
    const id = ++this.seq;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  };

  clear = (h: unknown): void => {
    this.timers.delete(h as number);
  };

  get armed(): number {
    return this.timers.size;
  }

  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      const next = [...this.timers.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      this.timers.delete(next[0]);
      this.now = Math.max(this.now, next[1].at);
      next[1].fn();
      for (let i = 0; i < 5; i++) await Promise.resolve(); // let the check and its continuation run
    }
    this.now = end;
  }
}

function setup(answer: () => boolean = () => false) {
  const t = new ManualTime();
  let activity = 0;
  const checks: number[] = [];
  const watch = new InputWatch({
    lastActivityAt: () => activity,
    check: async () => {
      checks.push(t.now);
      return answer();
    },
    firstMs: 1500,
    maxMs: 5000,
    now: () => t.now,
    setTimer: t.set,
    clearTimer: t.clear,
  });
  return {
    t,
    watch,
    checks,
    act: () => {
      activity = t.now;
      watch.poke();
    },
  };
}

describe('guardian input watch scheduling', () => {
  it('arms nothing without a foreground command, and stop disarms', async () => {
    const { t, watch, checks } = setup();
    watch.poke();
    assert.equal(t.armed, 0);
    watch.start();
    assert.equal(t.armed, 1);
    watch.stop();
    assert.equal(t.armed, 0);
    await t.advance(60_000);
    assert.deepEqual(checks, []);
  });

  it('checks after 1.5 s of quiet, then backs off to 3 s and at most 5 s', async () => {
    const { t, watch, checks } = setup();
    watch.start();
    await t.advance(20_000);
    assert.deepEqual(checks, [1500, 4500, 9500, 14500, 19500]);
  });

  it('does no check while output flows, and checks 1.5 s after it stops', async () => {
    const { t, watch, checks, act } = setup();
    watch.start();
    for (let i = 0; i < 100; i++) {
      await t.advance(100);
      act();
    }
    assert.deepEqual(checks, [], 'no check during 10 s of steady output');
    assert.ok(t.armed <= 1);
    const quietFrom = t.now;
    await t.advance(2000);
    assert.deepEqual(checks, [quietFrom + 1500]);
  });

  it('parks after a positive check until the next activity, then starts over at 1.5 s', async () => {
    let waiting = true;
    const { t, watch, checks, act } = setup(() => waiting);
    watch.start();
    await t.advance(1500);
    assert.deepEqual(checks, [1500]);
    await t.advance(30_000);
    assert.deepEqual(checks, [1500], 'no check while the prompt is known');
    assert.equal(t.armed, 0);
    waiting = false;
    act(); // input answered it
    const at = t.now;
    await t.advance(1500);
    assert.deepEqual(checks, [1500, at + 1500]);
  });

  it('pulls a backed-off check forward when activity comes', async () => {
    const { t, watch, checks, act } = setup();
    watch.start();
    await t.advance(10_000); // checks at 1.5, 4.5, 9.5 s; next due at 14.5 s
    assert.deepEqual(checks, [1500, 4500, 9500]);
    act();
    await t.advance(1500);
    assert.deepEqual(checks, [1500, 4500, 9500, 11_500]);
    await t.advance(3000);
    assert.deepEqual(checks, [1500, 4500, 9500, 11_500, 14_500], 'the back-off restarts at 3 s');
  });

  it('does not park when activity came during a positive check', async () => {
    const { t, watch, checks } = setup(() => true);
    let activity = 0;
    const w = new InputWatch({
      lastActivityAt: () => activity,
      check: async () => {
        checks.push(t.now);
        activity = t.now; // output arrived while the screen was read
        return true;
      },
      firstMs: 1500,
      maxMs: 5000,
      now: () => t.now,
      setTimer: t.set,
      clearTimer: t.clear,
    });
    watch.stop();
    w.start();
    await t.advance(3000);
    assert.deepEqual(checks, [1500, 3000]);
    w.stop();
  });
});
