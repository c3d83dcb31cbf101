import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { basic8, depthFromBits, fitGrid, renderHalfBlocks, xterm256 } from './half-blocks.js';

describe('terminal viewer rendering (issue 16 §5)', () => {
  it('fits 1280×800 into at most 160×60 cells keeping the aspect ratio for the cell aspect given', () => {
    assert.deepEqual(fitGrid(1280, 800, 200, 100, 0.5), { cols: 160, rows: 50 });
    assert.deepEqual(fitGrid(1280, 800, 80, 24, 0.5), { cols: 77, rows: 24 });
    // Square cells (aspect 1) need twice the rows for the same width.
    assert.deepEqual(fitGrid(1280, 800, 80, 200, 1), { cols: 80, rows: 50 });
    assert.deepEqual(fitGrid(800, 1280, 300, 300, 2), { cols: 19, rows: 60 });
  });

  it('picks 24-bit, 256 or 8 colours from the terminal depth', () => {
    assert.equal(depthFromBits(24), 24);
    assert.equal(depthFromBits(8), 256);
    assert.equal(depthFromBits(4), 8);
    assert.equal(xterm256(255, 0, 0), 196);
    assert.equal(xterm256(128, 128, 128), 244);
    assert.equal(basic8(250, 10, 10), 1);
    assert.equal(basic8(10, 10, 240), 4);
  });

  it('draws each cell as ▀ with the upper pixel in front and the lower behind, codes only on change', () => {
    // 2×1 cells = 2×2 pixels: red over blue, twice.
    const rgb = Uint8Array.from([255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255]);
    const [line] = renderHalfBlocks(rgb, { cols: 2, rows: 1 }, 24);
    assert.equal(line, '\x1b[38;2;255;0;0;48;2;0;0;255m▀▀\x1b[0m');
    assert.equal(renderHalfBlocks(rgb, { cols: 2, rows: 1 }, 8)[0], '\x1b[31;44m▀▀\x1b[0m');
  });
});
