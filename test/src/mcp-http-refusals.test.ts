import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import {
  httpClient,
  initializeBody,
  legacyHeaders,
  modernRequest,
  openSession,
  ownerToken,
  rawRequest,
  rpcMessages,
  startAdapter,
  type AdapterProcess,
} from './_harness/mcp-adapter.js';

/**
 * Every HTTP refusal of DESIGN §6.2, proven with raw requests (node:http, exact headers) against a
 * real `holdfast serve --http` process: 403 Host/Origin before dispatch, 401 after ≥ 100 ms with
 * `WWW-Authenticate`, `?token=` only when allowed, 413, 408, 429 (failed authentications in their
 * own bucket) and 503 (in flight, body budget) with `Retry-After: 1`,
 * 404 for unknown transport sessions (field failure #7) and other paths, 405 for other methods.
 */
const TOOLS_LIST_LEGACY = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });

describe('HTTP refusals on a running adapter (DESIGN §6.2)', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let token: string;
  before(async () => {
    await h.startDaemon();
    // thread affinity: every session(action=open) creates its own session (the timeout tests need two).
    a = await startAdapter(h, ['--max-body-bytes', '4096', '--request-timeout-ms', '1500', '--allowed-host', 'mcp.example.test', '--session-affinity', 'thread']);
    token = ownerToken(h);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('serves a valid request (the baseline the refusals differ from)', async () => {
    const r = await rawRequest(a.url, { headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY });
    assert.equal(r.status, 200);
    const [msg] = rpcMessages(r);
    assert.ok(Array.isArray((msg!.result as { tools: unknown[] }).tools));
  });

  it('403 for a Host that is not loopback or allowed, before authentication', async () => {
    const r = await rawRequest(a.url, { headers: legacyHeaders(null, { host: 'evil.example.com' }), body: TOOLS_LIST_LEGACY });
    assert.equal(r.status, 403);
    assert.match(r.body, /Host/);
  });

  it('403 for a foreign, malformed or missing Host on every route (metadata, OAuth, unknown paths, any method), and for an absolute-form target naming another host', async () => {
    const port = new URL(a.url).port;
    const paths = ['/mcp', '/', '/nope', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/oauth/token', '/oauth/register', '/oauth/auth'];
    const hosts = ['evil.example.com', `evil.example.com:${port}`, `127.0.0.1.evil.example.com:${port}`, `localhost/evil:${port}`, `localhost\\@evil.example.com`, `localhost:${port}@evil.example.com`];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'OPTIONS', 'DELETE']) {
        for (const host of hosts) {
          const r = await rawRequest(a.url, { path, method, headers: legacyHeaders(token, { host }), ...(method === 'POST' ? { body: TOOLS_LIST_LEGACY } : {}) });
          assert.equal(r.status, 403, `${method} ${path} Host ${host}: ${r.status} ${r.body.slice(0, 200)}`);
        }
      }
    }
    // An absolute-form request target names the host the request is for (RFC 9112 §3.2.2).
    const absolute = await rawRequest(a.url, { path: 'http://evil.example.com/mcp', headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY });
    assert.equal(absolute.status, 403, absolute.body);
    const own = await rawRequest(a.url, { path: `http://127.0.0.1:${port}/mcp`, headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY });
    assert.equal(own.status, 200, own.body);
    // No Host at all (HTTP/1.0 over a raw socket).
    const { connect } = await import('node:net');
    const noHost = await new Promise<string>((resolve, reject) => {
      const sock = connect({ host: '127.0.0.1', port: Number(port) });
      let text = '';
      sock.on('data', (d: Buffer) => (text += d.toString('latin1')));
      sock.on('end', () => resolve(text));
      sock.on('error', reject);
      sock.write(`GET /.well-known/oauth-protected-resource HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    });
    assert.match(noHost, /^HTTP\/1\.[01] 403/, noHost.slice(0, 200));
  });

  it('403 for a bad Origin with a good Host, even with a valid token', async () => {
    const r = await rawRequest(a.url, { headers: legacyHeaders(token, { origin: 'http://evil.example.com' }), body: TOOLS_LIST_LEGACY });
    assert.equal(r.status, 403);
    assert.match(r.body, /Origin/);
    const nullOrigin = await rawRequest(a.url, { headers: legacyHeaders(token, { origin: 'null' }), body: TOOLS_LIST_LEGACY });
    assert.equal(nullOrigin.status, 403);
  });

  it('accepts a loopback Origin and an --allowed-host Host', async () => {
    const port = new URL(a.url).port;
    const ok1 = await rawRequest(a.url, { headers: legacyHeaders(token, { origin: `http://localhost:${port}` }), body: TOOLS_LIST_LEGACY });
    assert.equal(ok1.status, 200);
    const ok2 = await rawRequest(a.url, { headers: legacyHeaders(token, { host: `mcp.example.test:${port}`, origin: 'https://mcp.example.test' }), body: TOOLS_LIST_LEGACY });
    assert.equal(ok2.status, 200);
  });

  it('401 after at least 100 ms with WWW-Authenticate: Bearer, for a missing, malformed or wrong token', async () => {
    const none = await rawRequest(a.url, { headers: legacyHeaders(null), body: TOOLS_LIST_LEGACY });
    assert.equal(none.status, 401);
    assert.ok(none.elapsedMs >= 100, `answered after ${none.elapsedMs} ms`);
    assert.match(String(none.headers['www-authenticate']), /^Bearer realm="holdfast"/);

    const wrong = await rawRequest(a.url, { headers: legacyHeaders(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')), body: TOOLS_LIST_LEGACY });
    assert.equal(wrong.status, 401);
    assert.ok(wrong.elapsedMs >= 100);
    assert.match(String(wrong.headers['www-authenticate']), /^Bearer .*error="invalid_token"/);

    const basic = await rawRequest(a.url, { headers: { ...legacyHeaders(null), authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }, body: TOOLS_LIST_LEGACY });
    assert.equal(basic.status, 401);
    assert.match(String(basic.headers['www-authenticate']), /error="invalid_request"/);
    assert.ok(!basic.body.includes(token) && !wrong.body.includes(token), 'the token never appears in an answer');
  });

  it('?token= is refused without --allow-query-token', async () => {
    const r = await rawRequest(a.url, { path: `/mcp?token=${encodeURIComponent(token)}`, headers: legacyHeaders(null), body: TOOLS_LIST_LEGACY });
    assert.equal(r.status, 401);
  });

  it('413 for a body over the limit, declared or streamed, before dispatch', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(8000) } });
    const declared = await rawRequest(a.url, { headers: legacyHeaders(token, { 'content-length': String(Buffer.byteLength(big)) }), body: big });
    assert.equal(declared.status, 413);
    // Chunked (no Content-Length): the limit is enforced while reading.
    const streamed = await new Promise<number>((resolve, reject) => {
      const u = new URL(a.url);
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: legacyHeaders(token), agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(big.slice(0, 3000));
      req.end(big.slice(3000));
    });
    assert.equal(streamed, 413);
  });

  it('a body that starts with a UTF-8 BOM and holds a batch is refused like any batch (400, -32600), either era', async () => {
    const BOM = '\uFEFF';
    const batch = JSON.stringify([JSON.parse(initializeBody(1)) as unknown, JSON.parse(TOOLS_LIST_LEGACY) as unknown]);
    const modern = modernRequest(token, 9, 'tools/list');
    for (const [era, headers, body] of [
      ['2025', legacyHeaders(token), BOM + batch],
      ['2026', modern.headers, BOM + JSON.stringify([JSON.parse(modern.body) as unknown, JSON.parse(modern.body) as unknown])],
      ['2025, BOM and whitespace', legacyHeaders(token), `${BOM} \n ${batch}`],
    ] as const) {
      const r = await rawRequest(a.url, { headers, body: Buffer.from(body, 'utf8') });
      assert.equal(r.status, 400, `${era}: ${r.status} ${r.body}`);
      const [msg] = rpcMessages(r);
      assert.equal((msg!.error as { code: number }).code, -32600, era);
      assert.match((msg!.error as { message: string }).message, /batch/, era);
      assert.doesNotMatch(r.body, /"result"/, `${era}: no call of the batch was answered`);
    }
    // A BOM before one message is read the way the SDK reads it (the BOM dropped): it is served.
    const one = await rawRequest(a.url, { headers: legacyHeaders(token), body: BOM + TOOLS_LIST_LEGACY });
    assert.equal(one.status, 200, one.body);
  });

  it('404 for another path, 405 for another method', async () => {
    const p = await rawRequest(a.url, { path: '/sse', method: 'GET', headers: { authorization: `Bearer ${token}` } });
    assert.equal(p.status, 404);
    const m = await rawRequest(a.url, { method: 'PUT', headers: legacyHeaders(token), body: '{}' });
    assert.equal(m.status, 405);
    assert.equal(m.headers.allow, 'GET, POST, DELETE');
  });

  it('404 for an unknown Mcp-Session-Id (so the client re-initializes), 200 DELETE, then 404', async () => {
    const bogus = await rawRequest(a.url, { headers: legacyHeaders(token, { 'mcp-session-id': 'bogus', 'mcp-protocol-version': '2025-11-25' }), body: TOOLS_LIST_LEGACY });
    assert.equal(bogus.status, 404);

    const init = await rawRequest(a.url, { headers: legacyHeaders(token), body: initializeBody() });
    assert.equal(init.status, 200);
    const sid = String(init.headers['mcp-session-id']);
    assert.match(sid, /^[\x21-\x7e]{16,}$/);
    const h2 = legacyHeaders(token, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    const inited = await rawRequest(a.url, { headers: h2, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    assert.equal(inited.status, 202);
    const listed = await rawRequest(a.url, { headers: h2, body: TOOLS_LIST_LEGACY });
    assert.equal(listed.status, 200);
    const del = await rawRequest(a.url, { method: 'DELETE', headers: h2 });
    assert.equal(del.status, 200);
    const gone = await rawRequest(a.url, { headers: h2, body: TOOLS_LIST_LEGACY });
    assert.equal(gone.status, 404);
  });

  it('a GET without a session id is 405 (no stream outside a transport session)', async () => {
    const r = await rawRequest(a.url, { method: 'GET', headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } });
    assert.equal(r.status, 405);
  });

  it('408 when a 2026-07-28 request takes longer than the request timeout; the adapter keeps serving', async () => {
    const client = await httpClient(a.url, token, 'auto');
    try {
      const s = await openSession(client, { workspace: 'ws' });
      const req = modernRequest(token, 41, 'tools/call', { name: 'execute', arguments: { remote_session_id: s.id, command: 'sleep 5', yield_time_ms: 10000 } }, 'execute');
      const r = await rawRequest(a.url, { headers: req.headers, body: req.body });
      assert.equal(r.status, 408, r.body);
      assert.ok(r.elapsedMs >= 1400 && r.elapsedMs < 4500, `408 after ${r.elapsedMs} ms`);
      assert.equal((JSON.parse(r.body) as { id: number }).id, 41);
      const list = modernRequest(token, 42, 'tools/list');
      const ok = await rawRequest(a.url, { headers: list.headers, body: list.body });
      assert.equal(ok.status, 200);
    } finally {
      await client.close();
    }
  });

  it('a 2025-era call that outlives the timeout on an open SSE stream ends with a TIMEOUT tool error', async () => {
    const client = await httpClient(a.url, token, 'legacy');
    try {
      const s = await openSession(client, { workspace: 'ws' });
      const started = performance.now();
      const r = await client.callTool({ name: 'execute', arguments: { remote_session_id: s.id, command: 'sleep 4', yield_time_ms: 10000 } });
      const elapsed = performance.now() - started;
      assert.equal(r.isError, true);
      const env = r.structuredContent as { status: string; error: { code: string; retryable: boolean } };
      assert.equal(env.status, 'failed');
      assert.equal(env.error.code, 'TIMEOUT');
      assert.ok(elapsed >= 1400 && elapsed < 3900, `TIMEOUT after ${elapsed} ms, before the command ended`);
    } finally {
      await client.close();
    }
  });
});

describe('429 per principal and source address; failed authentications in a bucket of their own', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  before(async () => {
    a = await startAdapter(h, ['--requests-per-minute', '3']);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('a flood without a valid token is throttled on its own and never locks out the real client', async () => {
    const token = ownerToken(h);
    // Every local client comes from 127.0.0.1: the failures must not spend the owner's budget.
    for (let i = 0; i < 3; i++) {
      const r = await rawRequest(a.url, { headers: legacyHeaders(i === 0 ? 'wrong-token' : null), body: TOOLS_LIST_LEGACY });
      assert.equal(r.status, 401);
      assert.ok(r.elapsedMs >= 95, `401 after ${r.elapsedMs} ms`);
    }
    const anonymous = await rawRequest(a.url, { headers: legacyHeaders(null), body: TOOLS_LIST_LEGACY });
    assert.equal(anonymous.status, 429, 'failed authentications are rate-limited');
    assert.equal(anonymous.headers['retry-after'], '1');
    assert.equal((await rawRequest(a.url, { headers: legacyHeaders('another-wrong-token'), body: TOOLS_LIST_LEGACY })).status, 429);

    for (let i = 0; i < 3; i++) {
      const r = await rawRequest(a.url, { headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY });
      assert.equal(r.status, 200, 'the valid token still gets through after the flood');
    }
    const limited = await rawRequest(a.url, { headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY });
    assert.equal(limited.status, 429, 'the principal has its own budget, and it is limited too');
    assert.equal(limited.headers['retry-after'], '1');
  });
});

describe('503 beyond the in-flight body budget', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  before(async () => {
    a = await startAdapter(h, ['--max-inflight-body-bytes', '100000']);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('answers 503 with Retry-After: 1 while other bodies hold the budget, and serves again after', async () => {
    const token = ownerToken(h);
    const body = TOOLS_LIST_LEGACY + ' '.repeat(60_000 - TOOLS_LIST_LEGACY.length); // 60 000 bytes of valid JSON
    const u = new URL(a.url);
    // Request 1 sends 50 000 bytes of its body and waits: the adapter holds them.
    let firstStatus = 0;
    const first = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: legacyHeaders(token, { 'content-length': String(body.length) }), agent: false }, (res) => {
      firstStatus = res.statusCode ?? 0;
      res.resume();
    });
    const firstDone = new Promise<void>((resolve, reject) => {
      first.on('close', () => resolve());
      first.on('error', reject);
    });
    first.write(body.slice(0, 50_000));
    // Poll until the held bytes leave no room for a second 60 000-byte body (no sleeps).
    let busy: Awaited<ReturnType<typeof rawRequest>> | undefined;
    for (let i = 0; i < 100; i++) {
      busy = await rawRequest(a.url, { headers: legacyHeaders(token), body });
      if (busy.status === 503) break;
      assert.equal(busy.status, 200);
    }
    assert.equal(busy!.status, 503);
    assert.equal(busy!.headers['retry-after'], '1');
    assert.match(busy!.body, /request bodies in flight/);
    // A small body still fits beside the held one.
    assert.equal((await rawRequest(a.url, { headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY })).status, 200);
    first.end(body.slice(50_000));
    await firstDone;
    assert.equal(firstStatus, 200);
    const again = await rawRequest(a.url, { headers: legacyHeaders(token), body });
    assert.equal(again.status, 200, 'the budget is given back when a request is answered');
  });
});

describe('503 beyond the in-flight limit', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  before(async () => {
    a = await startAdapter(h, ['--max-concurrency', '1']);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('answers 503 with Retry-After: 1 while another request is in flight, and serves again after', async () => {
    const token = ownerToken(h);
    const u = new URL(a.url);
    // Request 1 is admitted and waits for the rest of its body: it holds the only slot.
    let firstStatus = 0;
    const first = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: legacyHeaders(token, { 'content-length': String(TOOLS_LIST_LEGACY.length) }), agent: false }, (res) => {
      firstStatus = res.statusCode ?? 0;
      res.resume();
    });
    const firstDone = new Promise<void>((resolve, reject) => {
      first.on('close', () => resolve());
      first.on('error', reject);
    });
    first.write(TOOLS_LIST_LEGACY.slice(0, 10));
    first.flushHeaders();
    // Poll until the held request occupies the slot (no sleeps).
    let busy: Awaited<ReturnType<typeof rawRequest>> | undefined;
    for (let i = 0; i < 200; i++) {
      busy = await rawRequest(a.url, { headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY });
      if (busy.status === 503) break;
    }
    assert.equal(busy!.status, 503);
    assert.equal(busy!.headers['retry-after'], '1');
    first.end(TOOLS_LIST_LEGACY.slice(10));
    await firstDone;
    assert.equal(firstStatus, 200);
    const again = await rawRequest(a.url, { headers: legacyHeaders(token), body: TOOLS_LIST_LEGACY });
    assert.equal(again.status, 200);
  });
});

describe('?token= with --allow-query-token', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  before(async () => {
    a = await startAdapter(h, ['--allow-query-token']);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('accepts the token in the query string only when allowed, and still refuses a wrong one', async () => {
    const token = ownerToken(h);
    const ok = await rawRequest(a.url, { path: `/mcp?token=${encodeURIComponent(token)}`, headers: legacyHeaders(null), body: TOOLS_LIST_LEGACY });
    assert.equal(ok.status, 200);
    const bad = await rawRequest(a.url, { path: '/mcp?token=nope', headers: legacyHeaders(null), body: TOOLS_LIST_LEGACY });
    assert.equal(bad.status, 401);
    assert.match(a.stderr, /allow-query-token/);
  });
});
