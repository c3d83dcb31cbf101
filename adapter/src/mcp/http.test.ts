import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { CallContext, ToolCallResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { startHttpServer, type RunningHttpServer } from './http.js';
import { makePrincipal } from './principals.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolForwarder, type ToolBackend } from './tool-call.js';

/**
 * The HTTP pipeline in process, with a stand-in for the daemon (unit test: the real daemon is
 * exercised by test/src/mcp-*.test.ts). Covers what only a stand-in can force: daemon failures
 * becoming §6.3 envelopes, the CallContext the daemon receives, and transport sessions bound to
 * the principal that opened them.
 */
const ALICE = 'a'.repeat(40);
const BOB = 'b'.repeat(40);

const okEnvelope = (data: Record<string, unknown>): ToolCallResult => ({
  content: [{ type: 'text', text: 'ok' }],
  structuredContent: { status: 'succeeded', type: 't', context: {}, data, error: null, hints: {}, actions: [] },
  isError: false,
});

describe('HTTP pipeline with a stand-in daemon', () => {
  const contexts: CallContext[] = [];
  let server: RunningHttpServer;
  const backend: ToolBackend = {
    async callTool(tool, _args, context, opts) {
      contexts.push(context);
      if (tool === 'workspace') return okEnvelope({ workspaces: [] });
      if (tool === 'session') throw new HoldfastError('DAEMON_UNAVAILABLE', 'holdfastd is not reachable', { retryable: true });
      if (tool === 'runtime_read') return { content: [], structuredContent: { nonsense: true }, isError: false };
      // execute: waits until the adapter gives up on it.
      return new Promise((_resolve, reject) => opts.signal.addEventListener('abort', () => reject(new HoldfastError('CANCELLED', 'cancelled'))));
    },
  };
  before(async () => {
    const catalog = new ToolCatalog();
    const forwarder = new ToolForwarder(catalog, backend, null, { affinity: 'conversation', deadlineMs: 5000, requestTimeoutMs: 300 });
    server = await startHttpServer(
      {
        host: '127.0.0.1',
        port: 0,
        allowedHosts: [],
        auth: { mode: 'bearer', allowQueryToken: false, principals: [makePrincipal('alice', ['workspace', 'session', 'execute', 'runtime_read'], ALICE), makePrincipal('bob', ['workspace'], BOB)] },
        maxBodyBytes: 1 << 20,
        requestTimeoutMs: 300,
        maxConcurrency: 8,
        requestsPerMinute: 10_000,
        maxInflightBodyBytes: 64 << 20,
      },
      { catalog, forwarder, validator: new AjvJsonSchemaValidator(), resources: null },
      () => undefined,
    );
  });
  after(() => server.close());

  const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    });
  const messages = async (r: Response): Promise<Record<string, any>[]> => {
    const text = await r.text();
    if ((r.headers.get('content-type') ?? '').includes('event-stream')) {
      return text.split('\n').filter((l) => l.startsWith('data:') && l.length > 6).map((l) => JSON.parse(l.slice(5)));
    }
    return [JSON.parse(text)];
  };
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  it('sends the daemon a CallContext with principal, tools, era, request id and conversation header', async () => {
    const r = await post(ALICE, call(11, 'workspace'), { 'x-holdfast-conversation-id': 'conv-1' });
    const [m] = await messages(r);
    assert.equal(m!.result.isError, false);
    const ctx = contexts.at(-1)!;
    assert.equal(ctx.principal, 'alice');
    assert.deepEqual(ctx.allowed_tools, ['execute', 'runtime_read', 'session', 'workspace']);
    assert.equal(ctx.transport, 'legacy');
    assert.equal(ctx.request_id, '11');
    assert.equal(ctx.conversation_header, 'conv-1');
    assert.equal(ctx.affinity, 'conversation');
  });

  it('turns an unreachable daemon into a retryable failed envelope with a repeat action', async () => {
    const [m] = await messages(await post(ALICE, call(12, 'session', { workspace: 'w' })));
    const sc = m!.result.structuredContent;
    assert.equal(m!.result.isError, true);
    assert.equal(sc.status, 'failed');
    assert.deepEqual(sc.error, { code: 'DAEMON_UNAVAILABLE', message: 'holdfastd is not reachable', retryable: true });
    assert.deepEqual(sc.actions[0].tool, 'session');
    assert.deepEqual(sc.actions[0].arguments, { workspace: 'w' });
  });

  it('refuses a daemon result that breaks the tool’s output schema', async () => {
    const [m] = await messages(await post(ALICE, call(13, 'runtime_read')));
    assert.equal(m!.result.isError, true);
    assert.equal(m!.result.structuredContent.error.code, 'INTERNAL');
  });

  it('answers 408 when a modern call outlives the request timeout, and the daemon call is cancelled', async () => {
    const body = call(14, 'execute', { remote_session_id: 'rs_1', command: 'sleep 9' });
    (body.params as Record<string, unknown>)._meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    };
    const r = await post(ALICE, body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'execute' });
    assert.equal(r.status, 408);
    assert.equal(((await r.json()) as { id: number }).id, 14);
    assert.equal(contexts.at(-1)!.transport, 'modern');
  });

  it('binds a transport session to the principal that opened it', async () => {
    const init = await post(ALICE, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const h = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const mine = await post(ALICE, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, h);
    assert.equal(mine.status, 200);
    assert.equal((await messages(mine))[0]!.result.tools.length, 4);
    const [m] = await messages(await post(ALICE, call(3, 'workspace'), h));
    assert.equal(m!.result.isError, false);
    assert.equal(contexts.at(-1)!.mcp_session_id, sid);
    const theirs = await post(BOB, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, h);
    assert.equal(theirs.status, 404);
    await theirs.text();
  });

  it('lists and allows only the principal’s tools', async () => {
    const [list] = await messages(await post(BOB, { jsonrpc: '2.0', id: 5, method: 'tools/list' }));
    assert.deepEqual(list!.result.tools.map((t: { name: string }) => t.name), ['workspace']);
    const before = contexts.length;
    const [m] = await messages(await post(BOB, call(6, 'execute', { remote_session_id: 'x' })));
    assert.equal(m!.result.structuredContent.error.code, 'TOOL_NOT_ALLOWED');
    assert.equal(contexts.length, before, 'the daemon never saw the refused call');
  });
});
