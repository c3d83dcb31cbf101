import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { pollUntil, TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, startAdapter, useAdapters } from './_harness/mcp-adapter.js';
import { toolCaller } from './_harness/tools.js';

/**
 * Calls that span a lost adapter or `holdfast restart-daemon` (DESIGN §4.5): the adapter re-sends
 * calls that are safe to repeat after it reconnected — `execute` attach/status, and a run that
 * carries an `idempotency_key` (the daemon answers the repeat with the task the first attempt
 * started) — so the client gets the command's result instead of DAEMON_UNAVAILABLE; a client's
 * own retry after `kill -9` of the adapter gets the same task, not a second run.
 */
describe('execute across kill -9 of the adapter and restart-daemon', () => {
  const h = new TestHome();
  const { adapters, clients } = useAdapters(h);

  async function connect(): Promise<Client> {
    const a = await startAdapter(h);
    adapters.push(a);
    const c = await httpClient(a.url, ownerToken(h), 'legacy');
    clients.push(c);
    return c;
  }
  const runLines = (command: string): number =>
    readFileSync(h.layout.auditLog, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { event: string; command?: string })
      .filter((l) => l.event === 'execute.run' && l.command === command).length;
  async function restartDaemon(): Promise<void> {
    const old = h.daemonPid();
    const restart = await h.cli(['restart-daemon']);
    assert.equal(restart.code, 0, restart.stderr);
    await pollUntil('a new daemon pid', () => h.daemonPid() !== null && h.daemonPid() !== old, 15_000);
  }

  it('an attach in flight during restart-daemon returns the command’s result', async () => {
    const c = await connect();
    const s = await openSession(c, { workspace: 'ws' });
    const started = await callTool(c, 'execute', { remote_session_id: s.id, command: 'sleep 6; echo SPANNED', yield_time_ms: 200 });
    assert.equal(started.env.status, 'accepted', started.text);
    const id = started.env.data!.execution_task_id as string;
    // The attach waits in the old daemon while it drains and stops (in-flight calls get ≤ 3 s).
    const attach = callTool(c, 'execute', { action: 'attach', remote_session_id: s.id, execution_task_id: id, yield_time_ms: 30_000 });
    await restartDaemon();
    const r = await attach;
    assert.equal(r.isError, false, JSON.stringify(r.env.error));
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(r.env.data!.execution_task_id, id);
    assert.equal(r.env.data!.output, 'SPANNED');
    assert.equal(r.env.data!.exit_code, 0);
    // The adapter waited for the successor instead of starting a rival daemon.
    assert.doesNotMatch(readFileSync(h.layout.daemonLog, 'utf8'), /failed to start/);
  });

  it('a run with an idempotency_key is one run across kill -9 of the adapter and across restart-daemon', async () => {
    const c1 = await connect();
    const s = await openSession(c1, { workspace: 'ws' });
    const observer = toolCaller(h.client(), 'owner', ['execute', 'observe']);
    const runningTask = (command: string) =>
      pollUntil(`${command} to run`, async () => {
        const tasks = (await observer('observe', { view: 'session', remote_session_id: s.id })).env.data.tasks as { execution_task_id: string; state: string; command?: string }[];
        return tasks.find((t) => t.command === command && t.state === 'running');
      }, 15_000);

    // kill -9 of the adapter while the call waits; the client retries through a new adapter.
    const lost = { remote_session_id: s.id, command: 'sleep 3; echo ONCE-ONLY', yield_time_ms: 8000, idempotency_key: 'K-lost' };
    const firstAttempt = callTool(c1, 'execute', lost).catch((err: unknown) => err);
    const task = await runningTask(lost.command);
    await adapters[adapters.length - 1]!.kill9();
    // The SDK client would wait out its 60 s request timeout for an answer from the dead adapter
    // (it retries the stream): closing it ends the attempt, as a client that gave up would.
    await c1.close();
    await firstAttempt;
    const c2 = await connect();
    const retried = await callTool(c2, 'execute', lost);
    assert.equal(retried.isError, false, JSON.stringify(retried.env.error));
    assert.equal(retried.env.data!.execution_task_id, task.execution_task_id, 'the retry returns the first task');
    assert.equal(retried.env.data!.output, 'ONCE-ONLY');
    assert.equal(retried.env.hints.idempotent_replay, true);
    assert.equal(runLines(lost.command), 1, 'it ran once');

    // restart-daemon while the call waits: the adapter re-sends it by itself.
    const spanning = { remote_session_id: s.id, command: 'sleep 6; echo AFTER-RESTART', yield_time_ms: 30_000, idempotency_key: 'K-restart' };
    const call = callTool(c2, 'execute', spanning);
    const spanTask = await runningTask(spanning.command);
    await restartDaemon();
    const r = await call;
    assert.equal(r.isError, false, JSON.stringify(r.env.error));
    assert.equal(r.env.data!.execution_task_id, spanTask.execution_task_id);
    assert.equal(r.env.data!.output, 'AFTER-RESTART');
    assert.equal(r.env.data!.exit_code, 0);
    assert.equal(runLines(spanning.command), 1, 'it ran once');
  });

  it('a run without a key spanning restart-daemon is re-sent under the key the adapter minted: one run, its result', async () => {
    const c = await connect();
    const s = await openSession(c, { workspace: 'ws' });
    const observer = toolCaller(h.client(), 'owner', ['execute', 'observe']);
    const args = { remote_session_id: s.id, command: 'sleep 5; echo NO-KEY-SPANNED', yield_time_ms: 30_000 };
    const call = callTool(c, 'execute', args);
    await pollUntil('the unkeyed run to start', async () => {
      const tasks = (await observer('observe', { view: 'session', remote_session_id: s.id })).env.data.tasks as { command?: string; state: string }[];
      return tasks.some((t) => t.command === args.command && t.state === 'running');
    }, 15_000);
    await restartDaemon();
    const r = await call;
    assert.equal(r.isError, false, JSON.stringify(r.env.error));
    assert.equal(r.env.data!.output, 'NO-KEY-SPANNED');
    assert.equal(runLines(args.command), 1, 'it ran once');
    assert.doesNotMatch(r.text, /Same idempotency_key/, 'no note about a key the client never chose');
  });
});
