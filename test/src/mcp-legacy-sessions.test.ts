import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { initializeBody, legacyHeaders, ownerToken, rawRequest, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * 2025-11-25 transport sessions on `/mcp` (MCP 2025-11-25 Streamable HTTP, issue 3): SSE answers
 * start with a priming event (id + `retry`), a GET with `Last-Event-ID` replays what the client
 * missed on that stream, a standalone GET stream opens, and the 2025 stateless path answers
 * requests that carry no session id.
 */
interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((b) => b.trim().length > 0)
    .map((block) => {
      const e: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) e.id = line.slice(3).trim();
        else if (line.startsWith('retry:')) e.retry = Number(line.slice(6));
        else if (line.startsWith('data:')) e.data += line.slice(5).trim();
      }
      return e;
    });
}

/** Reads an event stream until `until` holds for the events so far, then cancels it. */
async function readStream(res: Response, until: (events: SseEvent[]) => boolean, timeoutMs = 10_000): Promise<SseEvent[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), new Promise<{ done: true; value?: undefined }>((r) => setTimeout(() => r({ done: true }), Math.max(1, deadline - Date.now())))]);
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      if (until(parseSse(text))) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return parseSse(text);
}

describe('2025-11-25 transport sessions: priming, resumption, GET stream', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let token: string;
  before(async () => {
    a = await startAdapter(h);
    token = ownerToken(h);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('primes SSE answers with an event id and retry, and replays a missed answer after Last-Event-ID', async () => {
    const init = await rawRequest(a.url, { headers: legacyHeaders(token), body: initializeBody() });
    const sid = String(init.headers['mcp-session-id']);
    const headers = legacyHeaders(token, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    await rawRequest(a.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });

    const listed = await rawRequest(a.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 21, method: 'tools/list' }) });
    assert.match(String(listed.headers['content-type']), /text\/event-stream/);
    const events = parseSse(listed.body);
    const priming = events[0]!;
    assert.ok(priming.id, 'the priming event has an id');
    assert.equal(priming.data, '', 'the priming event has no data');
    assert.equal(priming.retry, 1000, 'the priming event sets the reconnection delay');
    const answer = events.find((e) => e.data.includes('"id":21'));
    assert.ok(answer?.id, 'the answer has its own event id');

    // A client that lost the stream after the priming event reconnects and gets the answer again.
    const replay = await fetch(a.url, { method: 'GET', headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', 'last-event-id': priming.id! } });
    assert.equal(replay.status, 200);
    const replayed = await readStream(replay, (evs) => evs.some((e) => e.data.includes('"id":21')));
    const again = replayed.find((e) => e.data.includes('"id":21'));
    assert.ok(again, 'the missed answer is replayed');
    assert.equal(again.id, answer.id);
    assert.deepEqual((JSON.parse(again.data) as { result: unknown }).result, (JSON.parse(answer.data) as { result: unknown }).result);
  });

  it('opens a standalone GET event stream inside a transport session', async () => {
    const init = await rawRequest(a.url, { headers: legacyHeaders(token), body: initializeBody() });
    const sid = String(init.headers['mcp-session-id']);
    const ac = new AbortController();
    const res = await fetch(a.url, { method: 'GET', signal: ac.signal, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(res.headers.get('mcp-session-id'), sid);
    ac.abort();
    await res.body?.cancel().catch(() => undefined);
  });

  it('serves a 2025-era request without a session id statelessly (no Mcp-Session-Id issued)', async () => {
    const r = await rawRequest(a.url, { headers: legacyHeaders(token, { 'mcp-protocol-version': '2025-11-25' }), body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    assert.equal(r.status, 200);
    assert.equal(r.headers['mcp-session-id'], undefined);
    assert.ok(r.body.includes('"workspace"'));
  });
});

describe('2025-11-25: a dropped answer stream is not a cancellation', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let token: string;
  before(async () => {
    await h.startDaemon();
    a = await startAdapter(h);
    token = ownerToken(h);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('a command keeps running when the client drops the stream, and its result is replayed after Last-Event-ID', async () => {
    const init = await rawRequest(a.url, { headers: legacyHeaders(token), body: initializeBody() });
    const sid = String(init.headers['mcp-session-id']);
    const headers = legacyHeaders(token, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    await rawRequest(a.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const opened = await rawRequest(a.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'session', arguments: { workspace: 'ws' } } }) });
    const openEvent = parseSse(opened.body).find((e) => e.data.includes('"id":1'))!;
    const rs = (JSON.parse(openEvent.data) as { result: { structuredContent: { data: { remote_session_id: string } } } }).result.structuredContent.data.remote_session_id;

    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'execute', arguments: { remote_session_id: rs, command: 'sleep 1.5; echo resumed-$((6*7))', yield_time_ms: 20_000 } } };
    const res = await fetch(a.url, { method: 'POST', headers, body: JSON.stringify(call) });
    // Read the priming event, then drop the connection.
    const first = await readStream(res, (evs) => evs.length >= 1 && evs[0]!.id !== undefined);
    const lastEventId = first[0]!.id!;
    assert.ok(!first.some((e) => e.data.includes('"id":2')), 'the answer had not arrived yet');

    const replay = await fetch(a.url, { method: 'GET', headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastEventId } });
    assert.equal(replay.status, 200);
    const events = await readStream(replay, (evs) => evs.some((e) => e.data.includes('"id":2')), 20_000);
    const answer = events.find((e) => e.data.includes('"id":2'));
    assert.ok(answer, 'the answer arrives on the resumed stream');
    const result = (JSON.parse(answer.data) as { result: { isError: boolean; structuredContent: { data: { output: string; exit_code: number } } } }).result;
    assert.equal(result.isError, false, answer.data);
    assert.equal(result.structuredContent.data.exit_code, 0);
    assert.match(result.structuredContent.data.output, /resumed-42/);
  });
});
