import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { encodePng, sourceRect } from './image-encoder.js';

describe('screenshot encoding (issue 15 §5)', () => {
  it('scales the long edge down (never up) and shrinks further when the PNG is too large', async () => {
    const opaque = (w: number, h: number, noise: boolean): Buffer => {
      const b = noise ? randomBytes(w * h * 4) : Buffer.alloc(w * h * 4, 200);
      for (let i = 3; i < b.length; i += 4) b[i] = 255;
      return b;
    };
    assert.deepEqual((await encodePng(opaque(1920, 1080, false), { width: 1920, height: 1080 }, 1280)).size, { width: 1280, height: 720 });
    assert.deepEqual((await encodePng(opaque(100, 50, false), { width: 100, height: 50 }, 1280)).size, { width: 100, height: 50 });
    const small = await encodePng(opaque(400, 400, true), { width: 400, height: 400 }, 400, 100_000);
    assert.ok(small.png.length <= 100_000, `${small.png.length} bytes`);
    assert.ok(small.size.width < 400, 'noise does not fit at full size: scaled down');
  });

  it('clips rect to the display and refuses one outside it', () => {
    const display = { index: 1, x: 1920, y: 0, width: 1280, height: 1024 };
    assert.deepEqual(sourceRect(display, undefined), display);
    assert.deepEqual(sourceRect(display, { x: 1200, y: 1000, width: 200, height: 200 }), { x: 3120, y: 1000, width: 80, height: 24 });
    assert.throws(() => sourceRect(display, { x: 1280, y: 0, width: 10, height: 10 }), (e: { code: string }) => e.code === 'BAD_REQUEST');
  });
});
