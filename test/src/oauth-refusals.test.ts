import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { pollUntil, TestHome } from './_harness/home.js';
import { initializeBody, legacyHeaders, ownerToken, rawRequest, startAdapter, type AdapterProcess, type RawResponse } from './_harness/mcp-adapter.js';
import { approveInBrowser, createTestCa, homeSigningJwk, pkcePair, signAccessToken, startDocumentServer, type TestCa } from './_harness/oauth.js';

/**
 * Issue 14, "Must show" — every refusal with raw HTTP: tokens for another audience, expired, or
 * signed by another key (401), without the scope (403 insufficient_scope); `plain` PKCE and no
 * PKCE; a redirect URI not registered (a loopback port included); a client ID metadata document
 * whose client_id is not its URL; a metadata URL on a loopback address without the test flag; ten
 * wrong owner passwords (locked, logged). Plus `dual` (static and OAuth tokens both work),
 * `bearer` (no OAuth routes), revocation and key rotation.
 */
const OWNER_PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:4/callback';

describe('OAuth refusals', () => {
  const h = new TestHome();
  let ca: TestCa;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const documents = new Map<string, unknown>();
  let oauth: AdapterProcess; // --auth oauth, test flag on
  let dual: AdapterProcess; // --auth dual, no test flag
  let bearer: AdapterProcess; // --auth bearer
  let proxied: AdapterProcess; // --auth oauth behind a (simulated) TLS proxy at https://mcp.example.test
  let good: { access: string; refresh: string; clientId: string };

  const origin = (a: AdapterProcess): string => new URL(a.url).origin;
  const form = (url: string, fields: Record<string, string>): Promise<RawResponse> =>
    rawRequest(url, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const mcpList = (a: AdapterProcess, bearerToken: string | null): Promise<RawResponse> =>
    rawRequest(a.url, {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(bearerToken ? { authorization: `Bearer ${bearerToken}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });

  async function register(a: AdapterProcess, redirects: string[]): Promise<string> {
    const r = await rawRequest(`${origin(a)}/oauth/register`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'raw client', redirect_uris: redirects, token_endpoint_auth_method: 'none', application_type: 'native', grant_types: ['authorization_code', 'refresh_token'] }),
    });
    assert.equal(r.status, 201, r.body);
    return (JSON.parse(r.body) as { client_id: string }).client_id;
  }

  function authorizeUrl(a: AdapterProcess, params: Record<string, string>): string {
    return `${origin(a)}/oauth/authorize?${new URLSearchParams({ response_type: 'code', state: 'st', ...params }).toString()}`;
  }

  /** A full code flow with raw HTTP; the owner approves with the password. */
  async function signIn(a: AdapterProcess, clientId: string, redirect = REDIRECT): Promise<{ access: string; refresh: string; clientId: string }> {
    const { verifier, challenge } = pkcePair();
    const consent = await approveInBrowser(authorizeUrl(a, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' }), {
      password: OWNER_PASSWORD,
      stopAt: (u) => u.startsWith(redirect),
    });
    assert.ok(consent.redirect, `no redirect: ${consent.last.status} ${/class="err">([^<]*)/.exec(consent.last.body)?.[1] ?? ''}`);
    const code = new URL(consent.redirect).searchParams.get('code')!;
    const r = await form(`${origin(a)}/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier, client_id: clientId });
    assert.equal(r.status, 200, r.body);
    const t = JSON.parse(r.body) as { access_token: string; refresh_token: string };
    return { access: t.access_token, refresh: t.refresh_token, clientId };
  }

  before(async () => {
    ca = createTestCa();
    docs = await startDocumentServer(ca, documents);
    await h.startDaemon();
    const set = await h.cli(['oauth', 'set-password'], { input: `${OWNER_PASSWORD}\n` });
    assert.equal(set.code, 0, set.stderr);
    const env = { NODE_EXTRA_CA_CERTS: ca.caFile };
    [oauth, dual, bearer, proxied] = await Promise.all([
      startAdapter(h, ['--auth', 'oauth', '--test-oauth-allow-private-cimd'], env),
      startAdapter(h, ['--auth', 'dual'], env),
      startAdapter(h, ['--auth', 'bearer']),
      startAdapter(h, ['--auth', 'oauth', '--oauth-server-url', 'https://mcp.example.test', '--trust-proxy-headers']),
    ]);
    good = await signIn(oauth, await register(oauth, [REDIRECT]));
  });
  after(async () => {
    await Promise.all([oauth, dual, bearer, proxied].map((a) => a?.kill9()));
    await docs.close();
    ca.remove();
    await h.cleanup();
  });

  it('serves RFC 9728 and RFC 8414 metadata and challenges with resource_metadata and scope', async () => {
    const none = await mcpList(oauth, null);
    assert.equal(none.status, 401);
    const challenge = String(none.headers['www-authenticate']);
    assert.match(challenge, /^Bearer /);
    assert.ok(challenge.includes(`resource_metadata="${origin(oauth)}/.well-known/oauth-protected-resource/mcp"`), challenge);
    assert.ok(challenge.includes('scope="mcp"'), challenge);
    assert.doesNotMatch(challenge, /error=/, 'RFC 6750 §3.1: no error code without credentials');
    const garbage = await mcpList(oauth, 'not-a-token');
    assert.equal(garbage.status, 401);
    assert.match(String(garbage.headers['www-authenticate']), /error="invalid_token".*resource_metadata=/);
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const prm = JSON.parse((await rawRequest(`${origin(oauth)}${path}`, { method: 'GET' })).body) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
      assert.equal(prm.resource, oauth.url);
      assert.deepEqual(prm.authorization_servers, [origin(oauth)]);
      assert.deepEqual(prm.scopes_supported, ['mcp']);
    }
    const as = JSON.parse((await rawRequest(`${origin(oauth)}/.well-known/oauth-authorization-server`, { method: 'GET' })).body) as Record<string, unknown>;
    assert.equal(as.issuer, origin(oauth));
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.equal(as.client_id_metadata_document_supported, true);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.ok((as.token_endpoint_auth_methods_supported as string[]).includes('none'));
    assert.deepEqual(as.response_types_supported, ['code']);
    assert.equal((await mcpList(oauth, good.access)).status, 200);
  });

  it('behind a proxy, every URL uses server_url, whatever Host the proxy forwards', async () => {
    for (const host of ['mcp.example.test', `127.0.0.1:${new URL(proxied.url).port}`]) {
      const get = (path: string): Promise<RawResponse> => rawRequest(`${origin(proxied)}${path}`, { method: 'GET', headers: { host, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' } });
      const as = JSON.parse((await get('/.well-known/oauth-authorization-server')).body) as { issuer: string; authorization_endpoint: string };
      assert.equal(as.issuer, 'https://mcp.example.test');
      assert.equal(as.authorization_endpoint, 'https://mcp.example.test/oauth/authorize');
      assert.equal((JSON.parse((await get('/.well-known/oauth-protected-resource/mcp')).body) as { resource: string }).resource, 'https://mcp.example.test/mcp');
      const challenge = await rawRequest(proxied.url, { headers: { host, 'content-type': 'application/json' }, body: '{}' });
      assert.match(String(challenge.headers['www-authenticate']), /resource_metadata="https:\/\/mcp\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"/);
    }
    const clientId = (JSON.parse(
      (
        await rawRequest(`${origin(proxied)}/oauth/register`, {
          headers: { host: 'mcp.example.test', 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', application_type: 'native' }),
        })
      ).body,
    ) as { client_id: string }).client_id;
    const { challenge } = pkcePair();
    const start = await rawRequest(authorizeUrl(proxied, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET', headers: { host: 'mcp.example.test' } });
    assert.equal(start.status, 303);
    assert.match(String(start.headers.location), /^\/oauth\/consent\//);
    assert.ok((start.headers['set-cookie'] ?? []).every((c) => /; secure/i.test(c)), 'cookies are Secure: the public origin is https');
    // The public host is let in without --allowed-host; any other is not.
    assert.equal((await rawRequest(`${origin(proxied)}/.well-known/oauth-authorization-server`, { method: 'GET', headers: { host: 'evil.example' } })).status, 403);
  });

  it('refuses tokens for another audience, expired, signed by another key, and without the scope', async () => {
    const jwk = homeSigningJwk(h.home);
    const base = decodeJwt(good.access);
    const now = Math.floor(Date.now() / 1000);
    const claims = { ...base, iat: now, exp: now + 600 };
    // The crafted token with nothing changed works: every refusal below is for the one change.
    assert.equal((await mcpList(oauth, await signAccessToken(jwk, claims))).status, 200);
    const otherAud = await mcpList(oauth, await signAccessToken(jwk, { ...claims, aud: 'https://elsewhere.example/mcp' }));
    assert.equal(otherAud.status, 401);
    assert.match(String(otherAud.headers['www-authenticate']), /error="invalid_token"/);
    const expired = await mcpList(oauth, await signAccessToken(jwk, { ...claims, iat: now - 7200, exp: now - 3600 }));
    assert.equal(expired.status, 401);
    assert.match(String(expired.headers['www-authenticate']), /expired/);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const foreign = { ...(privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: jwk.kid };
    assert.equal((await mcpList(oauth, await signAccessToken(foreign, claims))).status, 401);
    const noScope = await mcpList(oauth, await signAccessToken(jwk, { ...claims, scope: 'offline_access' }));
    assert.equal(noScope.status, 403);
    assert.match(String(noScope.headers['www-authenticate']), /error="insufficient_scope"/);
    assert.match(String(noScope.headers['www-authenticate']), /scope="mcp"/);
    // Another issuer with the right audience, and a grant that does not exist: refused too.
    assert.equal((await mcpList(oauth, await signAccessToken(jwk, { ...claims, iss: 'https://evil.example' }))).status, 401);
    assert.equal((await mcpList(oauth, await signAccessToken(jwk, { ...claims, gid: 'no-such-grant' }))).status, 401);
  });

  it('refuses plain PKCE, a request without PKCE, and redirect URIs that were not registered', async () => {
    const clientId = await register(oauth, [REDIRECT]);
    const { challenge } = pkcePair();
    const plain = await rawRequest(authorizeUrl(oauth, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'plain' }), { method: 'GET' });
    assert.equal(plain.status, 303);
    const plainBack = new URL(String(plain.headers.location));
    assert.equal(plainBack.searchParams.get('error'), 'invalid_request');
    assert.equal(plainBack.searchParams.get('code'), null);
    const noPkce = await rawRequest(authorizeUrl(oauth, { client_id: clientId, redirect_uri: REDIRECT }), { method: 'GET' });
    assert.equal(new URL(String(noPkce.headers.location)).searchParams.get('error'), 'invalid_request');
    assert.match(new URL(String(noPkce.headers.location)).searchParams.get('error_description') ?? '', /PKCE/i);
    // A redirect URI not registered is never redirected to: an error page at the server instead.
    for (const redirect of ['http://127.0.0.1:4/elsewhere', 'http://127.0.0.1:5/callback', 'https://evil.example/callback']) {
      const r = await rawRequest(authorizeUrl(oauth, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET' });
      assert.equal(r.status, 400, `${redirect}: ${r.status}`);
      assert.equal(r.headers.location, undefined);
      assert.match(r.body, /redirect_uri/);
      assert.match(String(r.headers['content-security-policy']), /frame-ancestors 'none'/);
    }
    // A code exchanged without its verifier is refused.
    const { verifier } = pkcePair();
    const bad = await form(`${origin(oauth)}/oauth/token`, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId });
    assert.equal(bad.status, 400);
  });

  it('refuses a metadata document whose client_id is not its URL, and one on a loopback address without the test flag', async () => {
    const { challenge } = pkcePair();
    const liar = `${docs.origin}/liar.json`;
    documents.set('/liar.json', { client_id: `${docs.origin}/someone-else.json`, client_name: 'Liar', redirect_uris: [REDIRECT] });
    const r = await rawRequest(authorizeUrl(oauth, { client_id: liar, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET' });
    assert.equal(r.status, 400);
    assert.match(r.body, /client_id metadata document client_id does not match/);
    // An honest document is fetched by the adapter with the test flag …
    const honestPath = '/honest.json';
    for (const host of ['127.0.0.1', 'localhost']) {
      const id = `https://${host}:${new URL(docs.origin).port}${honestPath}`;
      documents.set(honestPath, { client_id: id, client_name: 'Honest', redirect_uris: [REDIRECT], application_type: 'native' });
      const ok = await rawRequest(authorizeUrl(oauth, { client_id: id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET' });
      assert.equal(ok.status, 303, `${host} with the test flag: ${ok.body.slice(0, 300)}`);
      assert.match(String(ok.headers.location), /^\/oauth\/consent\//);
      // … and refused without it: its host is a loopback address.
      const refused = await rawRequest(authorizeUrl(dual, { client_id: id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET' });
      assert.equal(refused.status, 400, `${host} without the flag`);
      assert.match(refused.body, /invalid_client/);
    }
    await pollUntil('the adapter to log why', () => /private or special-use address \(127\.0\.0\.1/.test(dual.stderr));
    // A document over the size cap (5 KiB) is refused.
    const big = `${docs.origin}/big.json`;
    documents.set('/big.json', { client_id: big, client_name: 'x'.repeat(6000), redirect_uris: [REDIRECT] });
    const tooBig = await rawRequest(authorizeUrl(oauth, { client_id: big, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET' });
    assert.equal(tooBig.status, 400);
    assert.match(tooBig.body, /invalid_client/);
    // Documents are cached by their Cache-Control (max-age=60 here): a change is not seen at once.
    const cached = `${docs.origin}/cached.json`;
    documents.set('/cached.json', { client_id: cached, client_name: 'Cached', redirect_uris: [REDIRECT], application_type: 'native' });
    const authorizeCached = () => rawRequest(authorizeUrl(oauth, { client_id: cached, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET' });
    assert.equal((await authorizeCached()).status, 303);
    documents.set('/cached.json', { client_id: cached, client_name: 'Cached', redirect_uris: ['http://127.0.0.1:4/moved'], application_type: 'native' });
    assert.equal((await authorizeCached()).status, 303, 'the cached document still names the old redirect URI');
  });

  it('dual accepts the static token and an OAuth token; bearer serves no OAuth routes', async () => {
    assert.equal((await mcpList(dual, ownerToken(h))).status, 200);
    const t = await signIn(dual, await register(dual, [REDIRECT]));
    assert.equal((await mcpList(dual, t.access)).status, 200);
    // A token of the other adapter's issuer is not one of this server's.
    assert.equal((await mcpList(dual, good.access)).status, 401);
    assert.equal((await mcpList(bearer, ownerToken(h))).status, 200);
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/oauth/authorize', '/oauth/token', '/oauth/register']) {
      assert.equal((await rawRequest(`${origin(bearer)}${path}`, { method: 'GET' })).status, 404, path);
    }
    assert.doesNotMatch(String((await mcpList(bearer, null)).headers['www-authenticate']), /resource_metadata/);
  });

  it('revocation and key rotation take effect at once', async () => {
    const t = await signIn(oauth, await register(oauth, [REDIRECT]));
    assert.equal((await mcpList(oauth, t.access)).status, 200);
    const rotated = await h.cli(['oauth', 'rotate-keys', '--json']);
    assert.equal(rotated.code, 0, rotated.stderr);
    // Tokens of the retired key still verify; new ones are signed with the new key.
    assert.equal((await mcpList(oauth, t.access)).status, 200);
    const after = await signIn(oauth, t.clientId);
    const kid = (JSON.parse(rotated.stdout) as { kid: string }).kid;
    assert.equal(JSON.parse(Buffer.from(after.access.split('.')[0]!, 'base64url').toString()).kid, kid);
    assert.equal((await mcpList(oauth, after.access)).status, 200);
    const clients = JSON.parse((await h.cli(['oauth', 'clients', '--json'])).stdout) as { client_id: string; principal: { principal: string } | null }[];
    const principal = clients.find((c) => c.client_id === t.clientId)!.principal!.principal;
    const revoked = await h.cli(['oauth', 'revoke', principal]);
    assert.equal(revoked.code, 0, revoked.stderr);
    await pollUntil('the revoked client’s token to be refused', async () => (await mcpList(oauth, after.access)).status === 401);
    assert.equal((await form(`${origin(oauth)}/oauth/token`, { grant_type: 'refresh_token', refresh_token: after.refresh, client_id: t.clientId })).status, 400);
  });

  it('revoking a client closes the MCP sessions opened with its tokens: the GET stream ends, the session id is gone (401, then 404)', async () => {
    const t = await signIn(oauth, await register(oauth, [REDIRECT]));
    const init = await rawRequest(oauth.url, { headers: legacyHeaders(t.access), body: initializeBody() });
    assert.equal(init.status, 200, init.body);
    const sid = String(init.headers['mcp-session-id']);
    const headers = (token: string): Record<string, string> => legacyHeaders(token, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    assert.equal((await rawRequest(oauth.url, { headers: headers(t.access), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status, 202);
    // The session's standalone GET stream stays open until the session ends.
    let streamEnded = false;
    const stream = rawRequest(oauth.url, { method: 'GET', headers: { accept: 'text/event-stream', authorization: `Bearer ${t.access}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, timeoutMs: 60_000 }).then(
      (r) => ((streamEnded = true), r),
      (e: Error) => ((streamEnded = true), { status: 0, body: e.message }),
    );
    const list = (token: string): Promise<RawResponse> => rawRequest(oauth.url, { headers: headers(token), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) });
    assert.equal((await list(t.access)).status, 200);
    assert.equal(streamEnded, false, 'the GET stream is open');
    const revoked = await h.cli(['oauth', 'revoke', t.clientId]);
    assert.equal(revoked.code, 0, revoked.stderr);
    await pollUntil('the session’s GET stream to end', () => streamEnded, 10_000);
    assert.equal((await stream).status, 200, 'the stream ended cleanly (it was closed, not refused)');
    assert.equal((await list(t.access)).status, 401, 'the revoked token is refused');
    // Approved again (a new grant): the old transport session is gone for good.
    const again = await signIn(oauth, t.clientId);
    assert.equal((await list(again.access)).status, 404, 'the session opened with the revoked client’s token no longer exists');
  });

  it('refresh tokens are never stored raw: the database files hold only their SHA-256, and refreshing still works', async () => {
    const t = await signIn(oauth, await register(oauth, [REDIRECT]));
    const r = await form(`${origin(oauth)}/oauth/token`, { grant_type: 'refresh_token', refresh_token: t.refresh, client_id: t.clientId });
    assert.equal(r.status, 200, r.body);
    const rotated = (JSON.parse(r.body) as { refresh_token: string }).refresh_token;
    assert.ok(rotated && rotated !== t.refresh, 'the refresh token was rotated');
    // The rotated token refreshes again.
    const again = await form(`${origin(oauth)}/oauth/token`, { grant_type: 'refresh_token', refresh_token: rotated, client_id: t.clientId });
    assert.equal(again.status, 200, again.body);
    const latest = (JSON.parse(again.body) as { refresh_token: string }).refresh_token;
    const files = [h.layout.db, `${h.layout.db}-wal`].filter((f) => existsSync(f));
    assert.ok(files.length > 0);
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const token of [t.refresh, rotated, latest]) assert.equal(bytes.includes(Buffer.from(token)), false, `${f} holds a raw refresh token`);
    }
  });

  it('ten wrong owner passwords lock approval by password for a while, and the lock is logged', async () => {
    const clientId = await register(oauth, [REDIRECT]);
    const { challenge } = pkcePair();
    const start = await rawRequest(authorizeUrl(oauth, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }), { method: 'GET' });
    const consentPath = String(start.headers.location);
    const cookies = (start.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const post = (fields: Record<string, string>): Promise<RawResponse> =>
      rawRequest(`${origin(oauth)}${consentPath}`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies, origin: origin(oauth) },
        body: new URLSearchParams({ decision: 'approve', tool_set: 'profile:read-only', ...fields }).toString(),
      });
    for (let i = 1; i <= 9; i++) {
      const r = await post({ password: `wrong password ${i}` });
      assert.equal(r.status, 403);
      assert.match(r.body, /wrong owner password/);
    }
    const tenth = await post({ password: 'wrong password 10' });
    assert.equal(tenth.status, 403);
    assert.match(tenth.body, /locked until/);
    const right = await post({ password: OWNER_PASSWORD });
    assert.equal(right.status, 403, 'even the right password is refused while locked');
    assert.match(right.body, /locked until/);
    await pollUntil('the daemon log line', () => /approvals by password locked after repeated wrong proofs.*"failures":10.*"source":"127\.0\.0\.1"/.test(h.daemonStderr));
    const audit = readFileSync(h.layout.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; source?: string });
    assert.ok(audit.some((e) => e.event === 'oauth.owner_locked' && e.source === '127.0.0.1'), 'audit line with the source address');
    // A one-time code from the owner's terminal still approves.
    const code = (JSON.parse((await h.cli(['oauth', 'approve', '--json'])).stdout) as { code: string }).code;
    const approved = await post({ code });
    assert.equal(approved.status, 303, approved.body.slice(0, 300));
    const status = await h.client().call('oauth.owner.status', {});
    assert.ok(status.locked_until !== null && status.locked_until > Date.now());
  });
});
