import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { pollUntil, processTable, TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, run, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * Concurrency through the adapter (field failures #4 and #9): two clients calling at once each get
 * their own result; while one session runs a command that lasts minutes, `tools/list` and another
 * session's `echo` answer in under a second.
 */
describe('concurrent clients through one adapter', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  const clients: Client[] = [];
  before(async () => {
    await h.startDaemon();
    // thread affinity: every open creates its own session, so the two clients do not share a shell.
    a = await startAdapter(h, ['--session-affinity', 'thread']);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await a.kill9();
    await h.cleanup();
  });

  async function client(mode: 'legacy' | 'auto'): Promise<Client> {
    const c = await httpClient(a.url, ownerToken(h), mode);
    clients.push(c);
    return c;
  }

  it('two clients calling at once get their own results (one in each era)', async () => {
    const c1 = await client('legacy');
    const c2 = await client('auto');
    const [s1, s2] = await Promise.all([openSession(c1, { workspace: 'ws' }), openSession(c2, { workspace: 'ws' })]);
    assert.notEqual(s1.id, s2.id);
    // Warm both shells (the first command of a shell may wait for its prompt).
    await Promise.all([run(c1, s1.id, 'true'), run(c2, s2.id, 'true')]);
    for (let round = 0; round < 3; round++) {
      const [r1, r2] = await Promise.all([run(c1, s1.id, `bash -c 'sleep 0.5; echo A${round}'`), run(c2, s2.id, `echo B${round}`)]);
      assert.equal(r1.output, `A${round}`);
      assert.equal(r2.output, `B${round}`);
    }
  });

  it('while a minutes-long command runs, tools/list and another session’s echo answer in under a second', async () => {
    const busy = await client('auto');
    const other = await client('legacy');
    const lister = await client('auto');
    const sBusy = await openSession(busy, { workspace: 'ws' });
    const sOther = await openSession(other, { workspace: 'ws' });
    await run(other, sOther.id, 'true');
    // A duration no other test on this machine uses, so the process table check sees only ours.
    const sleepArg = `300.${process.pid}${Date.now() % 1000}`;
    // The call stays in flight in the adapter for as long as it waits (up to 60 s).
    const long = callTool(busy, 'execute', { remote_session_id: sBusy.id, command: `sleep ${sleepArg}`, yield_time_ms: 60_000 });
    try {
      await pollUntil('the long command to run', () => processTable().some((p) => p.cmd === `sleep ${sleepArg}`), 15_000);
      for (let i = 0; i < 3; i++) {
        let t = performance.now();
        const tools = await lister.listTools();
        const listMs = performance.now() - t;
        assert.ok(tools.tools.length > 0);
        assert.ok(listMs < 1000, `tools/list took ${listMs} ms`);
        t = performance.now();
        const echo = await run(other, sOther.id, `echo ok${i}`);
        const echoMs = performance.now() - t;
        assert.equal(echo.output, `ok${i}`);
        assert.ok(echoMs < 1000, `the other session's echo took ${echoMs} ms`);
      }
    } finally {
      // Closing the busy session kills its process groups; the in-flight call then returns.
      await callTool(other, 'session', { action: 'close', remote_session_id: sBusy.id });
      await long.catch(() => undefined);
    }
    await pollUntil('sleep 300 to be gone', () => !processTable().some((p) => p.cmd === `sleep ${sleepArg}`), 10_000);
  });
});
