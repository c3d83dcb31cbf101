import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { initializeBody, legacyHeaders, ownerToken, rawRequest, rpcMessages, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * Issue 18 item 7: HTTP limits a slow or batching client could bypass. JSON-RPC batches are
 * refused (they carried 100 tool calls past the rate and concurrency limits in one request); a
 * body trickling in is cut with 408 after a few seconds (four slow uploads held every slot, and
 * normal requests got 503); slow headers get 408 within seconds (not ~78 s).
 */
const TOOLS_LIST = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

/** Opens a raw connection to the adapter; resolves with the socket and a promise of everything it receives. */
function rawConnection(url: string): Promise<{ socket: Socket; received: Promise<{ text: string; afterMs: number }> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname, port: Number(u.port) });
    const started = performance.now();
    let text = '';
    const received = new Promise<{ text: string; afterMs: number }>((done) => {
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('close', () => done({ text, afterMs: performance.now() - started }));
      socket.on('error', () => undefined);
    });
    socket.once('connect', () => resolve({ socket, received }));
    socket.once('error', reject);
  });
}

/** Settles with `p`, or rejects after `ms` (an old adapter never answers a slow client). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (t = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms)))]).finally(() => clearTimeout(t));
}

/** Writes `bytes` one at a time every `everyMs` until the socket closes or they run out. */
function trickle(socket: Socket, bytes: string, everyMs: number): NodeJS.Timeout {
  let i = 0;
  const t = setInterval(() => {
    if (socket.destroyed || i >= bytes.length) return clearInterval(t);
    socket.write(bytes[i++]!);
  }, everyMs);
  return t;
}

describe('HTTP limits a slow or batching client cannot bypass (issue 18)', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let token: string;
  before(async () => {
    await h.startDaemon();
    a = await startAdapter(h, ['--max-concurrency', '2']);
    token = ownerToken(h);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('refuses a JSON-RPC batch with 400 (-32600) and answers none of its calls', async () => {
    const body = JSON.stringify([JSON.parse(initializeBody(1)) as unknown, TOOLS_LIST(2), TOOLS_LIST(3)]);
    const r = await rawRequest(a.url, { headers: legacyHeaders(token), body });
    assert.equal(r.status, 400, r.body);
    const [msg] = rpcMessages(r);
    assert.equal((msg!.error as { code: number }).code, -32600);
    assert.match((msg!.error as { message: string }).message, /batch/);
    // A single message still works.
    const one = await rawRequest(a.url, { headers: legacyHeaders(token), body: initializeBody(4) });
    assert.equal(one.status, 200, one.body);
  });

  it('cuts slow request bodies with 408 within seconds, so they cannot hold every slot', async () => {
    const u = new URL(a.url);
    const slow = await Promise.all([rawConnection(a.url), rawConnection(a.url)]);
    const timers: NodeJS.Timeout[] = [];
    for (const c of slow) {
      const head =
        `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nContent-Length: 2000\r\n\r\n`;
      c.socket.write(head);
      timers.push(trickle(c.socket, initializeBody(9).padEnd(2000, ' '), 400));
    }
    try {
      const answers = await within(Promise.all(slow.map((c) => c.received)), 15_000, 'the slow bodies');
      for (const r of answers) {
        assert.match(r.text, /^HTTP\/1\.1 408/, r.text.slice(0, 200));
        assert.ok(r.afterMs < 9000, `408 after ${Math.round(r.afterMs)} ms`);
      }
    } finally {
      for (const t of timers) clearInterval(t);
      for (const c of slow) c.socket.destroy();
    }
    // Both slots are free again: a normal request is served (not 503).
    const ok = await rawRequest(a.url, { headers: legacyHeaders(token), body: initializeBody(10) });
    assert.equal(ok.status, 200, ok.body);
  });

  it('answers slow headers with 408 within seconds', async () => {
    const c = await rawConnection(a.url);
    const u = new URL(a.url);
    const t = trickle(c.socket, `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nX-Slow: ${'a'.repeat(200)}`, 250);
    try {
      const r = await within(c.received, 15_000, 'the slow headers');
      assert.match(r.text, /^HTTP\/1\.1 408/, r.text.slice(0, 200));
      assert.ok(r.afterMs < 9000, `408 after ${Math.round(r.afterMs)} ms`);
    } finally {
      clearInterval(t);
      c.socket.destroy();
    }
  });
});
