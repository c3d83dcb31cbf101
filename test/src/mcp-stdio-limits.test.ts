import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CLI_MAIN, isAlive, pollUntil, TestHome } from './_harness/home.js';
import { homeEnv } from './_harness/mcp-adapter.js';

const LIMIT = 64 * 1024;

/**
 * `holdfast serve --stdio` and an oversize message (docs/http-security.md "Oversize messages"): a
 * line longer than the limit (`--max-body-bytes`, else `limits.max_body_bytes`) is answered with
 * JSON-RPC -32600 carrying the request's id (recovered even after a huge `params`) or null, and the
 * same connection then initializes and lists tools — before, the SDK's read buffer threw and the
 * transport closed without an answer.
 */
describe('stdio: an oversize message gets -32600 and the connection stays usable', () => {
  const h = new TestHome();
  let child: ChildProcess;
  let out = '';
  const messages = (): Array<Record<string, unknown>> =>
    out
      .split('\n')
      .filter((l) => l.trim().length > 0)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const answer = (id: unknown): Promise<Record<string, unknown>> =>
    pollUntil(`the answer to ${JSON.stringify(id)}`, () => messages().find((m) => 'id' in m && JSON.stringify(m.id) === JSON.stringify(id) && ('result' in m || 'error' in m)) ?? null, 15_000);
  const send = (line: string): void => {
    child.stdin!.write(line + '\n');
  };

  before(async () => {
    await h.startDaemon();
    child = spawn(process.execPath, [CLI_MAIN, 'serve', '--stdio', '--no-register-cwd', '--max-body-bytes', String(LIMIT)], { env: homeEnv(h), stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.resume();
  });
  after(async () => {
    child?.stdin?.end();
    if (child?.pid && isAlive(child.pid)) child.kill('SIGKILL');
    await h.cleanup();
  });

  it('answers -32600 with the id (or null), then serves initialize and tools/list on the same stdin', async () => {
    const pad = 'A'.repeat(LIMIT * 3);
    send(JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'execute', arguments: { command: pad } } }));
    const first = await answer(41);
    assert.equal((first.error as { code: number }).code, -32600, JSON.stringify(first).slice(0, 400));
    assert.match((first.error as { message: string }).message, new RegExp(`limit of ${LIMIT} bytes`));

    // The id after the huge params is still recovered; a line with no id is answered with id null.
    send(`{"jsonrpc":"2.0","method":"tools/call","params":{"id":1,"pad":"${pad}"},"id":"late"}`);
    assert.equal(((await answer('late')).error as { code: number }).code, -32600);
    send(`not json at all ${pad}`);
    const anonymous = await pollUntil('the id-null answer', () => messages().find((m) => m.id === null && 'error' in m) ?? null, 15_000);
    assert.equal((anonymous.error as { code: number }).code, -32600);

    send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdio-limits', version: '1' } } }));
    const init = await answer(1);
    assert.ok(init.result, JSON.stringify(init));
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    const list = await answer(2);
    assert.ok(((list.result as { tools: unknown[] }).tools ?? []).length > 0, 'tools/list answers after the refusals');
    // A message just under the limit still goes through (to the tool, which judges it).
    send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: { pad: 'B'.repeat(LIMIT - 200) } } }));
    const near = await answer(3);
    assert.notEqual((near.error as { code?: number } | undefined)?.code, -32600, JSON.stringify(near).slice(0, 300));
    assert.equal(child.exitCode, null, 'the adapter is still running');
  });
});
