import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TicketBook } from './tickets.js';

describe('video-socket tickets (issue 16 §3)', () => {
  it('work once, for 15 s, and carry what they were made for', () => {
    let now = 0;
    const book = new TicketBook(15_000, () => now);
    const claims = { viewId: 'view_a', desktopSessionId: 'ds_a', generation: 2, kind: 'page' as const, browserSession: 'b1' };
    const { ticket, expiresAt } = book.mint(claims);
    assert.equal(expiresAt, 15_000);
    assert.deepEqual(book.redeem(ticket), claims);
    assert.equal(book.redeem(ticket), null, 'a second use');
    const late = book.mint(claims).ticket;
    now = 15_001;
    assert.equal(book.redeem(late), null, 'expired');
    assert.equal(book.redeem('made-up'), null);
    assert.equal(book.redeem(42), null);
  });
});
