import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { isAlive, pollUntil, TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, run, startAdapter, stdioClient, useAdapters, type EraMode } from './_harness/mcp-adapter.js';
import { callAfter } from './_harness/text-calls.js';

/**
 * The adapter is stateless (DESIGN §1, issue 3): a session opened through one adapter survives a
 * `kill -9` of that adapter and a `holdfast restart-daemon`; a new adapter resumes it by
 * `remote_session_id` and the same shell answers `echo $$`. Proven with the official v2 client in
 * both HTTP eras and over stdio.
 */
const ERAS: { label: string; mode: EraMode; expect: 'legacy' | 'modern' }[] = [
  { label: '2025-11-25 (versionNegotiation legacy)', mode: 'legacy', expect: 'legacy' },
  { label: '2026-07-28 (versionNegotiation auto)', mode: 'auto', expect: 'modern' },
  { label: '2026-07-28 (pinned)', mode: { pin: '2026-07-28' }, expect: 'modern' },
];

for (const era of ERAS) {
  describe(`HTTP ${era.label}: kill -9 of the adapter and restart-daemon keep the shell`, () => {
    const h = new TestHome();
    const { adapters, clients } = useAdapters(h);

    it('resumes the same shell pid through a new adapter, then after restart-daemon', async () => {
      const a1 = await startAdapter(h);
      adapters.push(a1);
      const token = ownerToken(h);
      const c1 = await httpClient(a1.url, token, era.mode);
      clients.push(c1);
      assert.equal(c1.getProtocolEra(), era.expect);
      const s = await openSession(c1, { workspace: 'ws' });
      const first = await run(c1, s.id, 'echo $$');
      assert.equal(first.exitCode, 0);
      const pid = Number(first.output);
      assert.ok(pid > 1, `echo $$ printed a pid (${first.output})`);

      await a1.kill9();
      assert.ok(isAlive(pid), 'the shell outlives the adapter');

      const a2 = await startAdapter(h);
      adapters.push(a2);
      const c2 = await httpClient(a2.url, token, era.mode);
      clients.push(c2);
      const resumed = await openSession(c2, { remote_session_id: s.id });
      assert.equal(resumed.id, s.id);
      assert.equal(resumed.shellPid, pid);
      assert.equal(Number((await run(c2, s.id, 'echo $$')).output), pid, 'same shell after kill -9 of the adapter');

      const oldDaemon = h.daemonPid();
      const restart = await h.cli(['restart-daemon']);
      assert.equal(restart.code, 0, restart.stderr);
      await pollUntil('a new daemon pid', () => h.daemonPid() !== null && h.daemonPid() !== oldDaemon, 15_000);
      // The same adapter reconnects by itself; the session is resumed and the shell is the same.
      const again = await openSession(c2, { remote_session_id: s.id });
      assert.equal(again.shellPid, pid);
      assert.equal(Number((await run(c2, s.id, 'echo $$')).output), pid, 'same shell after restart-daemon');
    });
  });
}

describe('stdio: kill -9 of the adapter and restart-daemon keep the shell', () => {
  const h = new TestHome();
  const clients: Client[] = [];
  const pids: number[] = [];
  before(() => h.startDaemon());
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const p of pids) if (isAlive(p)) process.kill(p, 'SIGKILL');
    await h.cleanup();
  });

  it('resumes the same shell pid through a new stdio adapter, then after restart-daemon', async () => {
    const first = await stdioClient(h);
    clients.push(first.client);
    pids.push(first.transport.pid!);
    const s = await openSession(first.client, { workspace: 'ws' });
    const pid = Number((await run(first.client, s.id, 'echo $$')).output);
    assert.ok(pid > 1);

    const adapterPid = first.transport.pid!;
    process.kill(adapterPid, 'SIGKILL');
    await pollUntil('stdio adapter to die', () => !isAlive(adapterPid), 5000);
    assert.ok(isAlive(pid), 'the shell outlives the adapter');

    const second = await stdioClient(h, [], 'auto');
    clients.push(second.client);
    pids.push(second.transport.pid!);
    const resumed = await openSession(second.client, { remote_session_id: s.id });
    assert.equal(resumed.shellPid, pid);
    assert.equal(Number((await run(second.client, s.id, 'echo $$')).output), pid);

    const restart = await h.cli(['restart-daemon']);
    assert.equal(restart.code, 0, restart.stderr);
    assert.equal(Number((await run(second.client, s.id, 'echo $$')).output), pid, 'same shell after restart-daemon');
  });

  it('closing stdin ends the adapter but never the session', async () => {
    const c = await stdioClient(h);
    const adapterPid = c.transport.pid!;
    pids.push(adapterPid);
    const s = await openSession(c.client, { workspace: 'ws' });
    const shell = Number((await run(c.client, s.id, 'echo $$')).output);
    await c.client.close(); // closes the child's stdin
    await pollUntil('stdio adapter to exit after stdin closed', () => !isAlive(adapterPid), 10_000);
    assert.ok(isAlive(shell), 'the session shell is still alive');
    const c2 = await stdioClient(h);
    clients.push(c2.client);
    pids.push(c2.transport.pid!);
    assert.equal((await openSession(c2.client, { remote_session_id: s.id })).shellPid, shell);
  });
});

describe('resume while a command still runs: the text block names it and the call that picks it up', () => {
  const h = new TestHome();
  const { adapters, clients } = useAdapters(h);

  it('after kill -9 of the adapter, session(open) and observe(view="session") name the foreground task and the background count', async () => {
    // A client that gives the model only the text block (DESIGN §6.3) read "Resumed session … cwd …"
    // and nothing about the command it had left running.
    const a1 = await startAdapter(h);
    adapters.push(a1);
    const token = ownerToken(h);
    const c1 = await httpClient(a1.url, token, 'auto');
    clients.push(c1);
    const s = await openSession(c1, { workspace: 'ws' });
    const bg = await callTool(c1, 'execute', { remote_session_id: s.id, command: 'sleep 120', background: true });
    const bgId = bg.env.data!.execution_task_id as string;
    const fg = await callTool(c1, 'execute', { remote_session_id: s.id, command: 'sleep 120 # still here', yield_time_ms: 300 });
    assert.equal(fg.env.status, 'accepted', fg.text);
    const fgId = fg.env.data!.execution_task_id as string;
    await a1.kill9();

    const a2 = await startAdapter(h);
    adapters.push(a2);
    const c2 = await httpClient(a2.url, token, 'auto');
    clients.push(c2);
    const resumed = await callTool(c2, 'session', { action: 'open', remote_session_id: s.id });
    assert.equal(resumed.isError, false, resumed.text);
    assert.match(resumed.text, new RegExp(`Still running in the terminal: ${fgId} \`sleep 120 # still here\``));
    const attach = callAfter(resumed.text, 'pick it up with ');
    assert.deepEqual(attach, { tool: 'execute', args: { action: 'attach', execution_task_id: fgId } });
    assert.match(resumed.text, /\n1 background task running/);
    assert.deepEqual(resumed.env.actions[0]!.arguments, { action: 'attach', remote_session_id: s.id, execution_task_id: fgId });

    const view = await callTool(c2, 'observe', { view: 'session', remote_session_id: s.id });
    assert.match(view.text, new RegExp(`In the terminal: ${fgId} \`sleep 120 # still here\``));
    assert.deepEqual(callAfter(view.text, 'attach with '), { tool: 'execute', args: { action: 'attach', execution_task_id: fgId } });

    for (const id of [fgId, bgId]) await callTool(c2, 'execute', { action: 'stop', remote_session_id: s.id, execution_task_id: id });
  });
});
