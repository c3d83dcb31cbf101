import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputLimits } from '@holdfast/shared/constants';
import { textBlockContent } from './file.js';

describe('read: the text block never mirrors a large window (DESIGN §6.3)', () => {
  it('keeps small content whole', () => {
    const s = 'line\n'.repeat(100);
    assert.equal(textBlockContent(s), s);
  });
  it('shows the head of a large window on line boundaries with a note', () => {
    const s = Array.from({ length: 20000 }, (_, i) => `line ${i} ${'名'.repeat(3)}`).join('\n');
    const t = textBlockContent(s);
    assert.ok(Buffer.byteLength(t) <= OutputLimits.TEXT_BLOCK_MAX_BYTES + 200);
    assert.ok(t.startsWith('line 0 名名名\nline 1 '));
    assert.match(t, /\n\[… the text block shows the first \d+ of \d+ bytes; the whole window is in structuredContent\.data\.content\]$/);
    assert.ok(!t.includes('\uFFFD'));
  });
});
