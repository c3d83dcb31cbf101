import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SCREEN_MAX_BYTES, screenText } from './command-screen.js';

describe('the screen of a command awaiting input', () => {
  it('drops the spaces a full-screen program wrote to pad its rows, so its text fits the cap', () => {
    const cols = 200;
    const pad = (s: string): string => s.padEnd(cols, ' ');
    const lines = [pad('hello'), pad('there'), ...Array.from({ length: 46 }, () => pad('~')), pad('"notes.txt" 2L, 12B'), ''];
    const text = screenText({ lines, cursor: { x: 0, y: 0 } });
    assert.ok(Buffer.byteLength(text) < SCREEN_MAX_BYTES);
    assert.doesNotMatch(text, / \n| $/, 'no trailing spaces');
    const shown = text.split('\n');
    assert.equal(shown.length, 40, 'the last 40 lines');
    assert.equal(shown[shown.length - 1], '"notes.txt" 2L, 12B');
  });

  it('keeps the spaces up to the cursor on its line (the answer follows them) and drops trailing blank lines', () => {
    const text = screenText({ lines: ['top      ', 'Name?      ', '   ', ''], cursor: { x: 6, y: 1 } });
    assert.equal(text, 'top\nName? ');
  });
});
