import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { action, callText, moreLine } from './envelope.js';

describe('callText: an action as the call a text-only client makes (DESIGN §6.3)', () => {
  it('gives every argument but remote_session_id, JSON-encoded, in order', () => {
    const a = action('read', { remote_session_id: 'rs_1', view: 'search', query: 'a "b", c=d', include: ['*.ts'], limit: 3, cursor: 'eyJ2IjoxfQ' }, 'next page');
    assert.equal(callText(a), 'read(view="search", query="a \\"b\\", c=d", include=["*.ts"], limit=3, cursor="eyJ2IjoxfQ")');
  });
  it('moreLine is the last line of a paged text block, empty without a next page', () => {
    assert.equal(moreLine(action('observe', { remote_session_id: 'rs_1', view: 'history', before_seq: 12 }, 'older events')), '\n[more: observe(view="history", before_seq=12)]');
    assert.equal(moreLine(undefined), '');
  });
});
