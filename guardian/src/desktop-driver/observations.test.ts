import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObservationStore } from './observations.js';

const sample = { sourceRect: { x: 0, y: 0, width: 10, height: 10 }, imageSize: { width: 10, height: 10 }, generation: 1, geometryEpoch: 1, display: 0, frameId: 1 };
const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'none';
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
};

describe('observations (issue 15 §5)', () => {
  it('refuses a 31-second-old observation and accepts a 29-second-old one', () => {
    let now = 1_000_000;
    const s = new ObservationStore(() => now);
    const a = s.add(sample);
    now += 29_000;
    assert.equal(s.get(a.id).id, a.id);
    const b = s.add(sample);
    now += 2000; // a is 31 s old, b 2 s
    assert.match(code(() => s.get(a.id)), /^OBSERVATION_EXPIRED: .*older than 30 s/);
    assert.equal(s.get(b.id).id, b.id);
  });

  it('lets the 33rd observation evict the first, and ends them all at once', () => {
    const s = new ObservationStore();
    const ids = Array.from({ length: 33 }, () => s.add(sample).id);
    assert.equal(s.size, 32);
    assert.match(code(() => s.get(ids[0]!)), /^OBSERVATION_EXPIRED: .*evicted/);
    assert.equal(s.get(ids[1]!).id, ids[1]);
    assert.equal(s.endAll('display 1 was selected'), 32);
    assert.match(code(() => s.get(ids[32]!)), /display 1 was selected/);
    assert.match(code(() => s.get('obs_01JUNKJUNKJUNKJUNKJUNKJUNK')), /not an observation of this desktop session/);
  });
});
