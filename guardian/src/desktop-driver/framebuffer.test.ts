import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Framebuffer } from './framebuffer.js';

describe('Framebuffer', () => {
  it('keeps alpha opaque, copies overlapping rectangles, crops and reports updates', () => {
    const f = new Framebuffer();
    const sizes: unknown[] = [];
    f.on('resize', (s) => sizes.push(s));
    f.resize(4, 3);
    assert.deepEqual(sizes, [{ width: 4, height: 3 }]);
    assert.equal(f.data[3], 255, 'a new framebuffer is opaque black');
    const row = Buffer.from([1, 2, 3, 0, 4, 5, 6, 0]);
    f.putRows(1, 1, 2, 1, row);
    assert.deepEqual(f.pixel(2, 1), [4, 5, 6]);
    assert.equal(f.data[(1 * 4 + 2) * 4 + 3], 255, 'alpha forced to 255 whatever the server sent');
    f.copyRect(1, 1, 2, 1, 2, 1); // overlapping copy one pixel right
    assert.deepEqual([f.pixel(2, 1), f.pixel(3, 1)], [[1, 2, 3], [4, 5, 6]]);
    assert.deepEqual([...f.crop({ x: 2, y: 1, width: 2, height: 1 })], [1, 2, 3, 255, 4, 5, 6, 255]);
    assert.throws(() => f.putRows(3, 0, 2, 1, row), /outside/);
    const frames: number[] = [];
    f.on('frame', (u) => frames.push(u.frameId));
    f.commit([{ x: 0, y: 0, width: 1, height: 1 }]);
    assert.deepEqual(frames, [1]);
    assert.ok(f.lastUpdateAt > 0);
  });
});
