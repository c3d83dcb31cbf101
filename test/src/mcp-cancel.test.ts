/**
 * Cancelling `execute` through the real adapter (issue 9, item 4), in both protocol eras:
 *
 * - 2025-11-25 (a transport session): `notifications/cancelled` of a running `sleep 15` interrupts
 *   it and the POST's event stream ends at once with a final `CANCELLED` result; the next run goes
 *   through at once; a cancel while the shell still loads its rc files means the command never
 *   runs. (A dropped stream is not a cancel there: mcp-legacy-sessions.test.ts.)
 * - 2026-07-28: closing the request's stream (how the official client cancels) ends a call whose
 *   command was not typed yet — it never runs — but a command already running keeps running: a
 *   dropped connection is never a reason to lose work.
 *
 * - A client's own request timeout (the SDKs send `notifications/cancelled` with the reason
 *   "Request timed out") is not a request to stop: the running command keeps running and is found
 *   with `observe(view=session)` and finished with `execute(action=attach)`; SDK v1 and v2.
 *
 * The user's `.bashrc` sleeps while `~/slow` exists, which makes a shell that is still loading.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pollUntil, TestHome } from './_harness/home.js';
import { callTool, httpClient, initializeBody, legacyHeaders, openSession, ownerToken, rawRequest, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';
import { toolCaller } from './_harness/tools.js';

/** The JSON-RPC messages of an SSE body. */
function sseMessages(body: string): { id?: number; result?: { structuredContent?: { error?: { code: string } | null; status?: string } } }[] {
  return body
    .split('\n')
    .filter((l) => l.startsWith('data:') && l.slice(5).trim().length > 0)
    .map((l) => JSON.parse(l.slice(5)) as { id?: number });
}

describe('cancelling execute', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let token: string;
  let control: ReturnType<typeof toolCaller>;
  let rs: string;
  const slow = (): string => join(h.userHome, 'slow');
  const procs = (cmd: string): number => h.processes().filter((p) => p.cmd === cmd).length;
  /** The guardian's foreground record as `observe(view=session)` shows it. */
  const foreground = async (): Promise<{ execution_task_id: string } | null> => (await control('observe', { view: 'session', remote_session_id: rs })).env.data.foreground;
  const task = async (id: string): Promise<{ state: string; error?: string; exit_code: number | null; output: string }> =>
    (await control('execute', { action: 'status', remote_session_id: rs, execution_task_id: id })).env.data;
  /** reset_shell calls still waiting for their new shell's first prompt (issue 8: it answers once the shell is ready). */
  const resets: Promise<{ isError: boolean }>[] = [];
  /**
   * Restarts the session's shell so that it is still loading its rc files: waits until the new
   * shell generation runs, not for reset_shell's answer (that comes when the shell is ready).
   */
  const coldShell = async (): Promise<void> => {
    writeFileSync(slow(), '');
    const shell = async (): Promise<{ generation: number; ready: boolean }> => (await control('observe', { view: 'session', remote_session_id: rs })).env.data.shell;
    const gen = (await shell()).generation;
    resets.push(control('session', { action: 'reset_shell', remote_session_id: rs }));
    await pollUntil('the new shell to be loading', async () => {
      const sh = await shell();
      return sh.generation > gen && !sh.ready ? sh : null;
    });
  };
  /** A 2025-era transport session: initialize + initialized; its request headers. */
  const legacySession = async (): Promise<Record<string, string>> => {
    const init = await rawRequest(a.url, { headers: legacyHeaders(token), body: initializeBody() });
    const headers = legacyHeaders(token, { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' });
    await rawRequest(a.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    return headers;
  };
  /** POSTs `execute` as JSON-RPC id `id`; resolves with the whole SSE body and when it ended. */
  const postExecute = (headers: Record<string, string>, id: number, command: string): Promise<{ body: string; endedAt: number }> =>
    rawRequest(a.url, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'execute', arguments: { remote_session_id: rs, command, yield_time_ms: 60_000 } } }),
      timeoutMs: 90_000,
    }).then((r) => ({ body: r.body, endedAt: Date.now() }));
  const cancel = (headers: Record<string, string>, id: number): Promise<unknown> =>
    rawRequest(a.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the user pressed Esc' } }) });

  before(async () => {
    writeFileSync(join(h.userHome, '.bashrc'), '[ -e "$HOME/slow" ] && sleep 3\n');
    await h.startDaemon();
    a = await startAdapter(h);
    token = ownerToken(h);
    control = toolCaller(h.client(), 'owner', ['session', 'execute', 'observe']);
    rs = (await control('session', { action: 'open', workspace: 'ws' })).env.context.remote_session_id!;
  });
  after(async () => {
    rmSync(slow(), { force: true });
    for (const r of await Promise.allSettled(resets)) assert.ok(r.status === 'fulfilled' && !r.value.isError, 'reset_shell answered once its shell was ready');
    await a.kill9();
    await h.cleanup();
  });

  it('2025-11-25: notifications/cancelled interrupts a running command and the POST ends at once', async () => {
    const headers = await legacySession();
    const answer = postExecute(headers, 7, 'sleep 15; echo done');
    await pollUntil('sleep 15 to run', () => procs('sleep 15') === 1);
    const id = (await foreground())!.execution_task_id;
    const t0 = Date.now();
    await cancel(headers, 7);
    const { body, endedAt } = await answer;
    assert.ok(endedAt - t0 < 3000, `the POST ended ${endedAt - t0} ms after the cancel`);
    const final = sseMessages(body).find((m) => m.id === 7);
    assert.equal(final?.result?.structuredContent?.error?.code, 'CANCELLED', body);
    await pollUntil('the command to be interrupted', () => procs('sleep 15') === 0, 5000);
    const t = await pollUntil('the task to end', async () => ((await task(id)).state !== 'running' ? task(id) : null));
    assert.deepEqual([t.state, t.error], ['interrupted', 'cancelled by the client: interrupted (Ctrl-C, then its process group was signalled)']);
    // The next command goes through at once: no COMMAND_ALREADY_RUNNING from the cancelled one.
    const next = await control('execute', { remote_session_id: rs, command: 'echo next' });
    assert.deepEqual([next.env.status, next.env.data.output], ['succeeded', 'next']);
  });

  it('2025-11-25: a cancel while the shell loads its rc files means the command never runs', async () => {
    const headers = await legacySession();
    await coldShell();
    const answer = postExecute(headers, 8, 'touch legacy-cancelled-ran');
    const fg = await pollUntil('the command to be queued', foreground, 20_000);
    const t0 = Date.now();
    await cancel(headers, 8);
    const { body, endedAt } = await answer;
    assert.ok(endedAt - t0 < 3000, `the POST ended ${endedAt - t0} ms after the cancel`);
    assert.equal(sseMessages(body).find((m) => m.id === 8)?.result?.structuredContent?.error?.code, 'CANCELLED');
    rmSync(slow(), { force: true });
    const t = await pollUntil('the task to end', async () => ((await task(fg.execution_task_id)).state !== 'running' ? task(fg.execution_task_id) : null));
    assert.deepEqual([t.state, t.error], ['interrupted', 'cancelled by the client before it started: it never ran']);
    const check = await control('execute', { remote_session_id: rs, command: 'test -e legacy-cancelled-ran; echo $?', yield_time_ms: 20_000 });
    assert.equal(check.env.data.output, '1', 'the cancelled command never ran');
    assert.equal(existsSync(join(h.workspace, 'legacy-cancelled-ran')), false);
  });

  /** Runs `command` with a client whose request timeout fires first; the command keeps running. */
  const timedOutRunKeepsRunning = async (call: (command: string) => Promise<unknown>, marker: string): Promise<void> => {
    const command = `sleep 2.5; echo kept > ${marker}`;
    await assert.rejects(call(command), /timed out/i);
    // The task id is discoverable: the session's foreground record names it while it runs.
    const fg = await foreground();
    assert.ok(fg, 'the command still runs after the client timed out');
    const t = await task(fg.execution_task_id);
    assert.equal(t.state, 'running', JSON.stringify(t));
    const done = await control('execute', { action: 'attach', remote_session_id: rs, execution_task_id: fg.execution_task_id, yield_time_ms: 20_000 });
    assert.deepEqual([done.env.status, done.env.data.exit_code], ['succeeded', 0], JSON.stringify(done.env));
    assert.equal(existsSync(join(h.workspace, marker)), true);
  };

  it('SDK v1 request timeout (notifications/cancelled "Request timed out") leaves the running command running', async () => {
    const v1 = new V1Client({ name: 'sdk-v1-timeout', version: '1.0.0' });
    await v1.connect(new V1Transport(new URL(a.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      await timedOutRunKeepsRunning((command) => v1.callTool({ name: 'execute', arguments: { remote_session_id: rs, command, yield_time_ms: 30_000 } }, undefined, { timeout: 1000 }), 'v1-timeout-kept');
    } finally {
      await v1.close();
    }
  });

  it('SDK v2 (2025-11-25) request timeout ("SdkError: Request timed out") leaves the running command running', async () => {
    const v2 = await httpClient(a.url, token, 'legacy');
    try {
      await timedOutRunKeepsRunning((command) => v2.callTool({ name: 'execute', arguments: { remote_session_id: rs, command, yield_time_ms: 30_000 } }, { timeout: 1000 }), 'v2-timeout-kept');
    } finally {
      await v2.close();
    }
  });

  describe('2026-07-28', () => {
    let client: Client;
    before(async () => {
      client = await httpClient(a.url, token, 'auto');
      assert.equal((await openSession(client, { workspace: 'ws' })).id, rs, 'the same session (workspace affinity)');
    });
    after(() => client.close());

    it('closing the stream of a call whose command is still queued: it never runs', async () => {
      await coldShell();
      const ac = new AbortController();
      const pending = client.callTool({ name: 'execute', arguments: { remote_session_id: rs, command: 'touch modern-queued-ran', yield_time_ms: 30_000 } }, { signal: ac.signal });
      const fg = await pollUntil('the command to be queued', foreground, 20_000);
      ac.abort();
      await assert.rejects(pending);
      rmSync(slow(), { force: true });
      const t = await pollUntil('the task to end', async () => ((await task(fg.execution_task_id)).state !== 'running' ? task(fg.execution_task_id) : null));
      assert.deepEqual([t.state, t.error], ['interrupted', 'the connection was lost before it started: it never ran']);
      const check = await callTool(client, 'execute', { remote_session_id: rs, command: 'test -e modern-queued-ran; echo $?', yield_time_ms: 20_000 });
      assert.equal(check.env.data!.output, '1');
    });

    it('closing the stream of a call whose command runs: it keeps running (a dropped connection loses nothing)', async () => {
      const ac = new AbortController();
      const pending = client.callTool({ name: 'execute', arguments: { remote_session_id: rs, command: 'sleep 1.5; echo kept > modern-kept', yield_time_ms: 30_000 } }, { signal: ac.signal });
      await pollUntil('sleep 1.5 to run', () => procs('sleep 1.5') === 1);
      const id = (await foreground())!.execution_task_id;
      ac.abort();
      await assert.rejects(pending);
      const t = await pollUntil('the command to finish by itself', async () => ((await task(id)).state !== 'running' ? task(id) : null), 10_000);
      assert.deepEqual([t.state, t.exit_code], ['exited', 0]);
      assert.equal(existsSync(join(h.workspace, 'modern-kept')), true);
    });
  });
});
