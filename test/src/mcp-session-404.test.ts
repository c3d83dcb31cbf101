import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * What 2025-era SDK clients do when their transport session is gone (the adapter was restarted on
 * the same port: its `Mcp-Session-Id`s lived only in its memory), as docs/connecting-clients.md
 * states it: neither the SDK v1 client nor the SDK v2 client re-initializes by itself — the call
 * fails with a 404 — and the documented recovery (a new client, `session(open)` with the old
 * `remote_session_id`) resumes the same holdfast session and shell.
 */
describe('a 2025-era transport session gone after an adapter restart (SDK v1 and v2 clients)', () => {
  const h = new TestHome();
  const adapters: AdapterProcess[] = [];
  let port = 0;

  before(async () => {
    await h.startDaemon();
    const a = await startAdapter(h);
    adapters.push(a);
    port = Number(new URL(a.url).port);
  });
  after(async () => {
    for (const a of adapters) await a.kill9().catch(() => undefined);
    await h.cleanup();
  });

  /** Kills the serving adapter and starts a new one on the same port. */
  async function restartAdapter(): Promise<AdapterProcess> {
    await adapters.at(-1)!.kill9();
    const a = await startAdapter(h, ['--bind', `127.0.0.1:${port}`]);
    adapters.push(a);
    return a;
  }

  const shellPid = async (call: (args: Record<string, unknown>) => Promise<unknown>, rs: string): Promise<number> => {
    const r = (await call({ remote_session_id: rs, command: 'echo $$', yield_time_ms: 10_000 })) as { structuredContent?: { data?: { output?: string } } };
    return Number(r.structuredContent?.data?.output);
  };

  it('SDK v1: the call fails with StreamableHTTPError 404; a new client resumes the session', async () => {
    const url = new URL(adapters.at(-1)!.url);
    const headers = { Authorization: `Bearer ${ownerToken(h)}` };
    const connect = async (): Promise<ClientV1> => {
      const c = new ClientV1({ name: 'sdk-v1-404', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      return c;
    };
    const c1 = await connect();
    const opened = (await c1.callTool({ name: 'session', arguments: { action: 'open', workspace: 'ws' } })) as unknown as { structuredContent: { data: { remote_session_id: string } } };
    const rs = opened.structuredContent.data.remote_session_id;
    const exec = (c: ClientV1) => (args: Record<string, unknown>) => c.callTool({ name: 'execute', arguments: args });
    const pid = await shellPid(exec(c1), rs);
    assert.ok(pid > 1);

    await restartAdapter();
    await assert.rejects(exec(c1)({ remote_session_id: rs, command: 'true' }), (err: unknown) => err instanceof StreamableHTTPError && err.code === 404);
    await c1.close().catch(() => undefined);

    const c2 = await connect();
    await c2.callTool({ name: 'session', arguments: { action: 'open', remote_session_id: rs } });
    assert.equal(await shellPid(exec(c2), rs), pid, 'the same shell');
    await c2.close();
  });

  it('SDK v2 (2025-11-25 era): the call fails with a 404 too; a new client resumes the session', async () => {
    const token = ownerToken(h);
    const c1: ClientV2 = await httpClient(adapters.at(-1)!.url, token, 'legacy');
    const s = await openSession(c1, { workspace: 'ws' });
    const exec = (c: ClientV2) => (args: Record<string, unknown>) => c.callTool({ name: 'execute', arguments: args });
    const pid = await shellPid(exec(c1), s.id);

    const a = await restartAdapter();
    await assert.rejects(exec(c1)({ remote_session_id: s.id, command: 'true' }), (err: Error) => /404|session not found|Session not found/i.test(String(err.message)) || (err as { code?: unknown }).code === 404);
    await c1.close().catch(() => undefined);

    const c2 = await httpClient(a.url, token, 'legacy');
    const resumed = await openSession(c2, { remote_session_id: s.id });
    assert.equal(resumed.shellPid, pid);
    assert.equal((await callTool(c2, 'execute', { remote_session_id: s.id, command: 'echo $$' })).env.data!.output, String(pid), 'the same shell');
    await c2.close();
  });
});
