import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestHome } from './_harness/home.js';
import { ownerToken, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * Issue 8 item 4 (long calls and the 60 s client timeout), with the client most MCP clients embed:
 * `@modelcontextprotocol/sdk` 1.x. Its requests time out after 60 s (DEFAULT_REQUEST_TIMEOUT_MSEC)
 * and only progress notifications reset that clock — when the caller asks for it
 * (`resetTimeoutOnProgress`, false by default; Inspector and other real clients set it, see
 * docs/connecting-clients.md). The two cases run at once (they wait, they do not compute), on two
 * sessions (thread affinity): about 75 s in all.
 */
interface V1Result {
  structuredContent?: { status: string; context: Record<string, string>; data: Record<string, unknown> | null; hints: Record<string, unknown> };
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

describe('long execute calls with an SDK v1 client (issue 8)', { concurrency: true }, () => {
  const h = new TestHome();
  let a: AdapterProcess;
  const clients: Client[] = [];

  async function v1Client(): Promise<Client> {
    const client = new Client({ name: 'sdk-v1-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken(h)}` } } }));
    clients.push(client);
    return client;
  }

  async function session(client: Client): Promise<string> {
    const r = (await client.callTool({ name: 'session', arguments: { action: 'open', workspace: 'ws' } })) as V1Result;
    assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
    // Wait for the shell's first prompt here, not in the timed call.
    await client.callTool({ name: 'execute', arguments: { remote_session_id: r.structuredContent!.context.remote_session_id, command: 'true', yield_time_ms: 30_000 } });
    return r.structuredContent!.context.remote_session_id!;
  }

  before(async () => {
    a = await startAdapter(h, ['--session-affinity', 'thread']);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await a.stop();
    await h.cleanup();
  });

  it('with onprogress, `sleep 75; echo done` (yield_time_ms 90000) finishes without a timeout', async () => {
    const client = await v1Client();
    const rs = await session(client);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const started = Date.now();
    const r = (await client.callTool({ name: 'execute', arguments: { remote_session_id: rs, command: 'sleep 75; echo done', yield_time_ms: 90_000 } }, undefined, {
      onprogress: (p) => progress.push(p),
      resetTimeoutOnProgress: true,
    })) as V1Result;
    const elapsed = Date.now() - started;
    assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
    assert.equal(r.structuredContent!.status, 'succeeded', JSON.stringify(r.structuredContent));
    assert.match(String(r.structuredContent!.data!.output), /done/);
    assert.equal(r.structuredContent!.data!.exit_code, 0);
    assert.ok(elapsed >= 74_000, `it waited for the command (${elapsed} ms)`);
    assert.ok(progress.length >= 6, `progress every 10 s (${progress.length})`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress, 'progress increases');
    assert.equal(progress[0]!.total, 90);
  });

  it('without a progress token, the same kind of call answers accepted with its task id in under 60 s', async () => {
    const client = await v1Client();
    const rs = await session(client);
    const started = Date.now();
    const r = (await client.callTool({ name: 'execute', arguments: { remote_session_id: rs, command: 'sleep 70; echo late', yield_time_ms: 90_000 } })) as V1Result;
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 60_000, `answered after ${elapsed} ms`);
    assert.ok(elapsed >= 49_000, `it did wait (${elapsed} ms)`);
    assert.equal(r.structuredContent!.status, 'accepted', JSON.stringify(r.structuredContent));
    const id = r.structuredContent!.context.execution_task_id;
    assert.match(String(id), /^task_/);
    assert.equal(r.structuredContent!.hints.wait_capped_ms, 50_000);
    const text = (r.content ?? []).map((c) => c.text ?? '').join('\n');
    assert.match(text, /no progress notifications/);
    // The task is still there to attach to.
    const st = (await client.callTool({ name: 'execute', arguments: { action: 'status', remote_session_id: rs, execution_task_id: id } })) as V1Result;
    assert.equal(st.structuredContent!.data!.state, 'running');
    await client.callTool({ name: 'execute', arguments: { action: 'stop', remote_session_id: rs, execution_task_id: id } });
  });
});
