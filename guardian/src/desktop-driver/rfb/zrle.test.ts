import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Framebuffer } from '../framebuffer.js';
import { decodeZrle } from './zrle.js';

const fb = (w: number, h: number): Framebuffer => {
  const f = new Framebuffer();
  f.resize(w, h);
  return f;
};
const px = (...c: number[]): number[] => c;

describe('ZRLE decoding (RFC 6143 §7.7.6)', () => {
  it('decodes solid, raw, packed-palette, plain-RLE and palette-RLE tiles', () => {
    // A 70x2 rectangle: two tiles (64x2 and 6x2).
    const f = fb(70, 2);
    const solid = [1, ...px(10, 20, 30)];
    const raw = [0, ...Array.from({ length: 12 }, (_, i) => px(i, i, i)).flat()];
    decodeZrle(Buffer.from([...solid, ...raw]), 0, 0, 70, 2, f);
    assert.deepEqual(f.pixel(0, 0), [10, 20, 30]);
    assert.deepEqual(f.pixel(63, 1), [10, 20, 30]);
    assert.deepEqual(f.pixel(64, 0), [0, 0, 0]);
    assert.deepEqual(f.pixel(69, 1), [11, 11, 11]);

    // Packed palette of 2 (1 bit per pixel, rows padded to a byte): a 3x2 tile 101 / 010.
    const g = fb(3, 2);
    decodeZrle(Buffer.from([2, ...px(0, 0, 0), ...px(255, 255, 255), 0b10100000, 0b01000000]), 0, 0, 3, 2, g);
    assert.deepEqual([g.pixel(0, 0), g.pixel(1, 0), g.pixel(2, 0), g.pixel(1, 1)], [[255, 255, 255], [0, 0, 0], [255, 255, 255], [255, 255, 255]]);
    // Packed palette of 5 (4 bits per pixel).
    decodeZrle(Buffer.from([5, ...px(1, 1, 1), ...px(2, 2, 2), ...px(3, 3, 3), ...px(4, 4, 4), ...px(5, 5, 5), 0x40, 0x20, 0x10, 0x30]), 0, 0, 3, 2, g);
    assert.deepEqual([g.pixel(0, 0), g.pixel(2, 0), g.pixel(0, 1), g.pixel(2, 1)], [[5, 5, 5], [3, 3, 3], [2, 2, 2], [4, 4, 4]]);

    // Plain RLE: 4 of red (run byte 3 = length 4), then 2 of blue.
    const r = fb(3, 2);
    decodeZrle(Buffer.from([128, ...px(255, 0, 0), 3, ...px(0, 0, 255), 1]), 0, 0, 3, 2, r);
    assert.deepEqual([r.pixel(0, 1), r.pixel(1, 1), r.pixel(2, 1)], [[255, 0, 0], [0, 0, 255], [0, 0, 255]]);
    // Palette RLE: a run of index 1 (5 pixels), then a single index 0.
    decodeZrle(Buffer.from([130, ...px(7, 7, 7), ...px(9, 9, 9), 0x81, 4, 0x00]), 0, 0, 3, 2, r);
    assert.deepEqual([r.pixel(0, 0), r.pixel(1, 1), r.pixel(2, 1)], [[9, 9, 9], [9, 9, 9], [7, 7, 7]]);
    // A run length of 255 continues into the next byte: 255 + 0 + 1 = 256 pixels of a 16x16 tile.
    const big = fb(16, 16);
    decodeZrle(Buffer.from([128, ...px(3, 4, 5), 255, 0]), 0, 0, 16, 16, big);
    assert.deepEqual(big.pixel(15, 15), [3, 4, 5]);
  });

  it('refuses truncated data, overflowing runs and reserved sub-encodings', () => {
    assert.throws(() => decodeZrle(Buffer.from([0, 1, 2]), 0, 0, 2, 2, fb(2, 2)), /ended inside a tile/);
    assert.throws(() => decodeZrle(Buffer.from([128, 1, 2, 3, 9]), 0, 0, 2, 2, fb(2, 2)), /overflows/);
    assert.throws(() => decodeZrle(Buffer.from([129]), 0, 0, 2, 2, fb(2, 2)), /invalid ZRLE sub-encoding 129/);
    assert.throws(() => decodeZrle(Buffer.from([1, 1, 2, 3, 0]), 0, 0, 2, 2, fb(2, 2)), /left 1 bytes/);
  });
});
