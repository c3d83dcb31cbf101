import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pairingCookie, PairingStore, readPairingCookie } from './pairing.js';

describe('PairingStore (issue 12, loopback pages)', () => {
  it('exchanges the fragment token once for a cookie and a CSRF token', () => {
    const s = new PairingStore<{ name: string }>();
    const t = s.create({ name: 'K' }, 60_000);
    assert.deepEqual(s.exchange(t.id, 'wrong'), { refused: 'mismatch' });
    const g = s.exchange(t.id, t.token);
    assert.ok('cookie' in g);
    assert.deepEqual(s.exchange(t.id, t.token), { refused: 'used' });
    assert.ok('data' in s.authorize(t.id, g.cookie, g.csrf));
    assert.deepEqual(s.authorize(t.id, g.cookie, 'bad'), { refused: 'unauthorized' });
    assert.deepEqual(s.authorize(t.id, null, g.csrf), { refused: 'unauthorized' });
    s.close(t.id);
    assert.deepEqual(s.authorize(t.id, g.cookie, g.csrf), { refused: 'closed' });
  });

  it('expires whether used or not', () => {
    const s = new PairingStore<null>();
    const t = s.create(null, 1000, 0);
    assert.deepEqual(s.exchange(t.id, t.token, 1000), { refused: 'expired' });
    assert.equal(s.get(t.id, 999)?.state, 'new');
    assert.equal(s.sweep(70_000), 0);
    assert.deepEqual(s.exchange(t.id, t.token, 500), { refused: 'unknown' });
  });

  it('cookies are HttpOnly, SameSite=Strict and path-scoped', () => {
    const c = pairingCookie('abc', '/s/x', 600);
    assert.match(c, /HttpOnly/);
    assert.match(c, /SameSite=Strict/);
    assert.match(c, /Path=\/s\/x/);
    assert.equal(readPairingCookie('a=1; hf_pair=abc; b=2'), 'abc');
    assert.equal(readPairingCookie(undefined), null);
  });
});
