import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { LoopbackAuth, originProblem, readCookie, securityHeaders } from './loopback-auth.js';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('loopback page pairing (issue 16 §1)', () => {
  it('a bootstrap secret works once and only within its lifetime; the session cookie is HttpOnly and SameSite=Strict', () => {
    let now = 1000;
    const auth = new LoopbackAuth({ bootstrapTtlMs: 60_000, sessionMaxMs: 12 * 3600_000, maxSessions: 4, cookieName: 'c', now: () => now });
    const { secret } = auth.mintSecret();
    const ex = auth.exchange(secret)!;
    assert.match(ex.setCookie, /^c=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    assert.equal(auth.exchange(secret), null, 'a second use');
    const late = auth.mintSecret().secret;
    now += 60_001;
    assert.equal(auth.exchange(late), null, 'older than 60 s');
    assert.equal(auth.exchange('guess'), null);
    assert.equal(auth.exchange(undefined), null);
  });

  it('a browser session is found by its cookie for at most 12 h; the CSRF token must match exactly', () => {
    let now = 0;
    const auth = new LoopbackAuth({ bootstrapTtlMs: 60_000, sessionMaxMs: 12 * 3600_000, maxSessions: 4, cookieName: 'c', now: () => now });
    const ex = auth.exchange(auth.mintSecret().secret)!;
    const cookie = ex.setCookie.split(';')[0]!;
    const s = auth.session(req({ cookie: `other=1; ${cookie}` }))!;
    assert.equal(s.id, ex.session.id);
    assert.equal(auth.csrfMatches(s, s.csrf), true);
    assert.equal(auth.csrfMatches(s, `${s.csrf}x`), false);
    assert.equal(auth.csrfMatches(s, undefined), false);
    assert.equal(auth.session(req({})), null);
    now = 12 * 3600_000 + 1;
    assert.equal(auth.session(req({ cookie })), null, 'expired after 12 h');
  });

  it('keeps at most maxSessions browser sessions (the oldest goes)', () => {
    const auth = new LoopbackAuth({ bootstrapTtlMs: 60_000, sessionMaxMs: 3600_000, maxSessions: 2, cookieName: 'c' });
    const cookies = [0, 1, 2].map(() => auth.exchange(auth.mintSecret().secret)!.setCookie.split(';')[0]!);
    assert.equal(auth.session(req({ cookie: cookies[0]! })), null);
    assert.ok(auth.session(req({ cookie: cookies[2]! })));
  });

  it('checks Host and Origin exactly, and sends a CSP without external sources and no framing', () => {
    assert.equal(originProblem(req({ host: '127.0.0.1:5000', origin: 'http://127.0.0.1:5000' }), 5000, 'required'), null);
    assert.match(originProblem(req({ host: 'localhost:5000', origin: 'http://127.0.0.1:5000' }), 5000, 'required')!, /Host/);
    assert.match(originProblem(req({ host: '127.0.0.1:5000', origin: 'http://127.0.0.1:5001' }), 5000, 'required')!, /Origin/);
    assert.match(originProblem(req({ host: '127.0.0.1:5000' }), 5000, 'required')!, /Origin/);
    assert.equal(originProblem(req({ host: '127.0.0.1:5000' }), 5000, 'if-present'), null);
    assert.match(originProblem(req({ host: '127.0.0.1:5000', 'sec-fetch-site': 'cross-site' }), 5000, 'if-present')!, /cross-site/);
    assert.equal(readCookie('a=1; b=2', 'b'), '2');
    const h = securityHeaders(5000);
    assert.match(h['Content-Security-Policy']!, /default-src 'none'.*frame-ancestors 'none'/);
    assert.doesNotMatch(h['Content-Security-Policy']!, /https?:/);
    assert.equal(h['X-Frame-Options'], 'DENY');
  });
});
