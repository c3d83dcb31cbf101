import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { findTool, PROFILES } from '@holdfast/shared/tools';
import { pollUntil, TestHome } from './_harness/home.js';
import { callTool, httpClient, legacyHeaders, modernRequest, openSession, rawRequest, rpcMessages, run, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * Principals (DESIGN §6.2): each principal's profile or allowed_tools filters `tools/list` and
 * gates `tools/call` alike; a principal cannot resume another's session (DESIGN §4.2); the usage
 * log (0600) records each call without arguments, outputs or tokens.
 */
const ALICE = 'alice-token-' + 'a'.repeat(32);
const BOB = 'bob-token-' + 'b'.repeat(32);
const SECRET = 'SECRET-' + 'c0ffee'.repeat(4);

describe('principals: tool sets, session ownership and the usage log', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  const clients: Client[] = [];
  before(async () => {
    await h.startDaemon();
    writeFileSync(join(h.home, 'alice.token'), ALICE + '\n', { mode: 0o600 });
    writeFileSync(
      join(h.home, 'principals.yaml'),
      [
        'principals:',
        '  - name: alice',
        '    token_file: alice.token',
        '    tool_profile: read-only',
        '  - name: bob',
        '    token_env: HF_TEST_BOB',
        '    allowed_tools: [workspace, session, execute]',
        '',
      ].join('\n'),
    );
    a = await startAdapter(h, ['--principal-config', join(h.home, 'principals.yaml')], { HF_TEST_BOB: BOB });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await a.kill9();
    await h.cleanup();
  });

  async function client(token: string, mode: 'legacy' | 'auto'): Promise<Client> {
    const c = await httpClient(a.url, token, mode);
    clients.push(c);
    return c;
  }

  it('tools/list shows each principal its own tools, in both eras', async () => {
    for (const mode of ['legacy', 'auto'] as const) {
      const alice = await client(ALICE, mode);
      const bob = await client(BOB, mode);
      // The read-only profile, as far as this build serves its tools.
      const readOnly = PROFILES['read-only'].filter((n) => findTool(n) !== undefined).sort();
      assert.ok(readOnly.includes('runtime_read') && !readOnly.includes('execute'));
      assert.deepEqual((await alice.listTools()).tools.map((t) => t.name).sort(), readOnly);
      assert.deepEqual((await bob.listTools()).tools.map((t) => t.name).sort(), ['execute', 'session', 'workspace']);
    }
  });

  it('a call outside the principal’s set is refused without reaching the daemon', async () => {
    const alice = await client(ALICE, 'auto');
    const r = await callTool(alice, 'execute', { remote_session_id: 'rs_x', command: `echo ${SECRET}` });
    assert.equal(r.isError, true);
    assert.equal(r.env.error!.code, 'TOOL_NOT_ALLOWED');
    // The message names only tools this adapter serves and alice may call.
    const listed = /allowed: (.*)$/.exec(r.env.error!.message)![1]!.split(', ').sort();
    assert.deepEqual(listed, PROFILES['read-only'].filter((n) => findTool(n) !== undefined).sort());
    const bob = await client(BOB, 'legacy');
    const r2 = await callTool(bob, 'runtime_read', {});
    assert.equal(r2.isError, true);
    assert.equal(r2.env.error!.code, 'TOOL_NOT_ALLOWED');
    // Raw, too: the refusal is a tool result, the same in the modern era.
    const req = modernRequest(ALICE, 5, 'tools/call', { name: 'execute', arguments: { remote_session_id: 'rs_x', command: 'id' } }, 'execute');
    const raw = await rawRequest(a.url, { headers: req.headers, body: req.body });
    assert.equal(raw.status, 200);
    const msg = rpcMessages(raw)[0] as { result: { isError: boolean; structuredContent: { error: { code: string } } } };
    assert.equal(msg.result.isError, true);
    assert.equal(msg.result.structuredContent.error.code, 'TOOL_NOT_ALLOWED');
  });

  it('an unknown tool is a protocol error (-32602), not a result', async () => {
    const raw = await rawRequest(a.url, { headers: legacyHeaders(BOB), body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'rm_rf', arguments: {} } }) });
    const msg = rpcMessages(raw)[0] as { error?: { code: number } };
    assert.equal(msg.error?.code, -32602);
  });

  it('input validation errors are isError results naming the field', async () => {
    const bob = await client(BOB, 'auto');
    const r = await callTool(bob, 'execute', { remote_session_id: 42 });
    assert.equal(r.isError, true);
    assert.equal(r.env.status, 'failed');
    assert.equal(r.env.error!.code, 'BAD_REQUEST');
    assert.match(r.env.error!.message, /remote_session_id/);
  });

  it('bob’s session cannot be resumed by alice', async () => {
    const bob = await client(BOB, 'auto');
    const s = await openSession(bob, { workspace: 'ws' });
    const out = await run(bob, s.id, `echo ${SECRET} > /dev/null; echo done`);
    assert.equal(out.output, 'done');
    const alice = await client(ALICE, 'auto');
    const r = await callTool(alice, 'session', { remote_session_id: s.id });
    assert.equal(r.isError, true);
    assert.equal(r.env.error!.code, 'SESSION_NOT_FOUND');
  });

  it('session actions that act on the shell (reset_shell, close) need execute: a read-only principal gets TOOL_NOT_ALLOWED', async () => {
    const alice = await client(ALICE, 'auto');
    const s = await openSession(alice, { workspace: 'ws' });
    for (const action of ['reset_shell', 'close']) {
      const r = await callTool(alice, 'session', { action, remote_session_id: s.id });
      assert.equal(r.isError, true, `${action} must be refused`);
      assert.equal(r.env.error!.code, 'TOOL_NOT_ALLOWED', `${action}: ${r.env.error!.message}`);
      assert.match(r.env.error!.message, new RegExp(`session\\(action="${action}"\\) acts on the shell .* needs the execute tool`));
    }
    const resumed = await callTool(alice, 'session', { remote_session_id: s.id });
    assert.equal(resumed.isError, false, 'the session is still there');
    assert.equal(resumed.env.context.remote_session_id, s.id);
  });

  it('the usage log is 0600 and records calls without arguments, output or tokens', async () => {
    const log = h.layout.usageLog;
    const text = await pollUntil('usage records of the calls above', () => {
      const t = readFileSync(log, 'utf8');
      // Records are written in batches (issue 10): wait for the last call's record, bob's execute.
      return /"tool":"execute","principal":"bob"[^\n]*"status":"succeeded"/.test(t) ? t : null;
    });
    assert.equal(statSync(log).mode & 0o777, 0o600);
    for (const secret of [SECRET, ALICE, BOB, 'echo', 'rs_x']) assert.ok(!text.includes(secret), `usage log must not contain ${secret}`);
    const records = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const bobExec = records.find((r) => r.tool === 'execute' && r.principal === 'bob' && r.status === 'succeeded');
    assert.ok(bobExec, 'a succeeded execute by bob');
    assert.deepEqual(Object.keys(bobExec).sort(), ['bytes', 'duration_ms', 'era', 'error_code', 'principal', 'request_id', 'status', 'tool', 'ts']);
    assert.equal(bobExec.era, 'modern');
    assert.equal(typeof bobExec.duration_ms, 'number');
    assert.ok((bobExec.bytes as number) > 0);
    assert.ok(records.some((r) => r.tool === 'execute' && r.principal === 'alice' && r.status === 'refused'));
    assert.ok(records.some((r) => r.status === 'invalid' && r.error_code === 'BAD_REQUEST'));
    assert.ok(records.some((r) => r.era === 'legacy'));
  });
});
