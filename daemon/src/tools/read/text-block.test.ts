import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputLimits } from '@holdfast/shared/constants';
import { headContinuation, shownRange, textBlockHead } from './file.js';

describe('read: the text block never mirrors a large window (DESIGN §6.3)', () => {
  it('keeps small content whole', () => {
    const s = 'line\n'.repeat(100);
    assert.deepEqual(textBlockHead(s), { head: s, cut: false });
  });
  it('cuts a large window at a line end within the cap, on a character boundary', () => {
    const s = Array.from({ length: 20000 }, (_, i) => `line ${i} ${'名'.repeat(3)}`).join('\n');
    const { head, cut } = textBlockHead(s);
    assert.equal(cut, true);
    assert.ok(Buffer.byteLength(head) <= OutputLimits.TEXT_BLOCK_MAX_BYTES);
    assert.ok(Buffer.byteLength(head) > OutputLimits.TEXT_BLOCK_MAX_BYTES / 2);
    assert.ok(head.startsWith('line 0 名名名\nline 1 '));
    assert.ok(head.endsWith('\n') && s.startsWith(head));
    assert.ok(!head.includes('\uFFFD'));
  });
  it('a window that is one long line is cut inside it, never inside a character', () => {
    const s = '名'.repeat(OutputLimits.TEXT_BLOCK_MAX_BYTES);
    const { head, cut } = textBlockHead(s);
    assert.equal(cut, true);
    assert.ok(s.startsWith(head) && Buffer.byteLength(head) <= OutputLimits.TEXT_BLOCK_MAX_BYTES);
    assert.ok(Buffer.byteLength(head) > OutputLimits.TEXT_BLOCK_MAX_BYTES - 3);
  });
});

describe('read: the cursor after a text block head (headContinuation)', () => {
  it('continues at the next line, or inside the line the head ends in (bytes of the file)', () => {
    const at = { offset: 10, lineByteOffset: 0 };
    assert.deepEqual(headContinuation({ firstLine: 10, partialFirst: false }, at, 'a\nb\n', 'c\n', 'utf8'), { offset: 12, line_byte_offset: 0 });
    assert.deepEqual(headContinuation({ firstLine: 10, partialFirst: false }, at, 'a\n名é', 'x\n', 'utf8'), { offset: 11, line_byte_offset: 5 });
    assert.deepEqual(headContinuation({ firstLine: 10, partialFirst: false }, at, 'a\n名é', 'x\n', 'latin1'), { offset: 11, line_byte_offset: 2 });
    assert.deepEqual(headContinuation({ firstLine: 10, partialFirst: true }, { offset: 10, lineByteOffset: 7 }, '名名', '名\n', 'utf8'), { offset: 10, line_byte_offset: 13 });
  });
  it('in a tail window of an unindexed file, counts from the end', () => {
    assert.deepEqual(headContinuation({ firstLine: null, partialFirst: false }, { offset: -50, lineByteOffset: 0 }, 'a\nb\n', 'c\n', 'utf8'), { offset: -48, line_byte_offset: 0 });
    assert.deepEqual(headContinuation({ firstLine: null, partialFirst: true }, { offset: -50, lineByteOffset: 0 }, 'tail of a line\nab', 'c\nd\ne', 'utf8'), { offset: -3, line_byte_offset: 2 });
    assert.equal(headContinuation({ firstLine: null, partialFirst: true }, { offset: -50, lineByteOffset: 0 }, 'inside one line', 'still', 'utf8'), null);
  });
});

describe('read: the header names what a cut text block shows (shownRange)', () => {
  it('whole lines, a last line in part, or part of one line, and the window apart', () => {
    assert.equal(shownRange('a\nb\n', 1, 8643, 8643, 14330), 'lines 1-2 (of a 1-8643 window) of 14330');
    assert.equal(shownRange('a\nb\nc', 10, 90, 81, null), 'lines 10-12, the last in part (of a 10-90 window)');
    assert.equal(shownRange('abc', 7, 7, 1, 9), 'part of line 7 (of a 7-7 window) of 9');
    assert.equal(shownRange('a\nb', null, null, 500, null), 'the first 2 (the last in part) of the last 500 lines');
  });
});
