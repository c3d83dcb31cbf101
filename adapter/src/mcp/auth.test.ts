import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BearerAuthenticator } from './auth.js';
import { makePrincipal } from './principals.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const principals = [makePrincipal('alice', ['workspace'], A), makePrincipal('bob', ['execute'], B)];

describe('BearerAuthenticator', () => {
  it('finds the principal of a valid token', () => {
    const auth = new BearerAuthenticator(principals, { allowQueryToken: false });
    const r = auth.authenticate({ authorization: `Bearer ${B}` }, '');
    assert.ok(r.ok && r.principal.name === 'bob');
    const lower = auth.authenticate({ authorization: `bearer ${A}` }, '');
    assert.ok(lower.ok && lower.principal.name === 'alice', 'the scheme is case-insensitive');
  });

  it('refuses missing, malformed and wrong tokens with RFC 6750 challenges', () => {
    const auth = new BearerAuthenticator(principals, { allowQueryToken: false });
    const none = auth.authenticate({}, '');
    assert.ok(!none.ok);
    assert.equal(none.wwwAuthenticate, 'Bearer realm="holdfast"');
    const wrong = auth.authenticate({ authorization: `Bearer ${A}x` }, '');
    assert.ok(!wrong.ok && wrong.wwwAuthenticate.includes('error="invalid_token"'));
    const basic = auth.authenticate({ authorization: 'Basic abc' }, '');
    assert.ok(!basic.ok && basic.error === 'invalid_request');
  });

  it('reads ?token= only when allowed', () => {
    const off = new BearerAuthenticator(principals, { allowQueryToken: false });
    assert.equal(off.authenticate({}, `?token=${A}`).ok, false);
    const on = new BearerAuthenticator(principals, { allowQueryToken: true });
    assert.equal(on.authenticate({}, `?token=${A}`).ok, true);
    assert.equal(on.authenticate({}, '?token=nope').ok, false);
  });
});
