import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as pace } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { CLI_MAIN, pollUntil, TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/** Longest the guardian's own watch may take to see a prompt (first check after 1.5 s of quiet), ms. */
const SEEN_WITHIN_MS = 8000;

/**
 * A foreground command sitting at a prompt is reported as `awaiting_input` by `execute(status)`,
 * `observe(view="session")` and `holdfast observe` without any call waiting on it: the guardian
 * watches a quiet foreground command itself (guardian/src/input-watch.ts). Before, only an
 * `execute` wait or an `attach` found the prompt, and a status poll said `false` for ever.
 */
describe('awaiting_input without anyone waiting (the guardian watches the prompt)', () => {
  const h = new TestHome();
  let adapter: AdapterProcess;
  let client: Client;
  let rs = '';
  let observer: ChildProcess | null = null;
  let observed = '';

  before(async () => {
    await h.startDaemon();
    adapter = await startAdapter(h);
    client = await httpClient(adapter.url, ownerToken(h), 'legacy');
    rs = (await openSession(client, { workspace: 'ws' })).id;
    const warm = await callTool(client, 'execute', { remote_session_id: rs, command: 'true', yield_time_ms: 30_000 });
    assert.equal(warm.env.data?.exit_code, 0, warm.text);
    observer = spawn(process.execPath, [CLI_MAIN, 'observe', 'ws', '--format', 'json'], { env: h.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    observer.stdout!.on('data', (d: Buffer) => (observed += d.toString()));
  });
  after(async () => {
    observer?.kill('SIGKILL');
    await client?.close().catch(() => undefined);
    await adapter?.kill9();
    await h.cleanup();
  });

  // A test that failed half-way leaves its command at the prompt: stop it so the next one can run.
  afterEach(async () => {
    const view = await callTool(client, 'observe', { view: 'session', remote_session_id: rs });
    const fg = view.env.data?.foreground as { execution_task_id: string } | null | undefined;
    if (fg) await callTool(client, 'execute', { remote_session_id: rs, action: 'stop', execution_task_id: fg.execution_task_id });
  });

  const execute = (args: Record<string, unknown>) => callTool(client, 'execute', { remote_session_id: rs, ...args });
  const status = (id: string) => execute({ action: 'status', execution_task_id: id });

  /** Starts `command` with a short yield (the call returns before any quiet window) and returns its task id. */
  async function startPrompting(command: string): Promise<string> {
    const r = await execute({ command, yield_time_ms: 200 });
    assert.equal(r.env.status, 'accepted', r.text);
    assert.equal(r.env.data!.awaiting_input, false, 'the run returned before the prompt was looked at');
    return r.env.data!.execution_task_id as string;
  }

  it("read -p: status reports awaiting_input with the prompt's screen, observe too; input clears it and the command finishes", async (t) => {
    const started = Date.now();
    const id = await startPrompting("read -p 'go? ' x; echo got-$x; sleep 2; echo finished");
    const seen = await pollUntil('status to report awaiting_input', async () => {
      const r = await status(id);
      return r.env.data!.awaiting_input === true ? r : null;
    }, SEEN_WITHIN_MS, 100);
    const seenMs = Date.now() - started;
    t.diagnostic(`read -p: awaiting_input seen by status ${seenMs} ms after the run started`);
    assert.equal(seen.env.status, 'accepted');
    assert.match(String(seen.env.data!.screen), /go\? $/m, seen.text);
    assert.ok(seen.env.actions.some((a) => a.arguments.action === 'stdin'), 'a ready stdin action');

    // observe(view="session") says the same, with the screen.
    const view = await callTool(client, 'observe', { view: 'session', remote_session_id: rs });
    const fg = view.env.data!.foreground as { execution_task_id: string; awaiting_input: boolean; screen?: string };
    assert.equal(fg.execution_task_id, id);
    assert.equal(fg.awaiting_input, true, view.text);
    assert.match(fg.screen ?? '', /go\? $/m);
    assert.match(view.text, /waiting for input/);

    // holdfast observe: a session.awaiting_input event with the command and its output tail.
    const event = await pollUntil('holdfast observe to show the prompt', () =>
      observed
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown>; output?: { streams: { lines: string[] }[] } })
        .find((e) => e.kind === 'session.awaiting_input' && e.data.execution_task_id === id),
    5000);
    assert.match(String(event.data.command), /read -p/);
    assert.ok(event.output?.streams.some((s) => s.lines.some((l) => /go\?/.test(l))), JSON.stringify(event));

    // The answer clears it (output resumes; the command still runs), then the command finishes.
    const answered = await execute({ action: 'stdin', execution_task_id: id, text: 'yes', keys: ['Enter'], yield_time_ms: 300 });
    assert.equal(answered.env.data!.awaiting_input, false, answered.text);
    const after = await status(id);
    assert.equal(after.env.data!.awaiting_input, false, after.text);
    const done = await execute({ action: 'attach', execution_task_id: id, yield_time_ms: 30_000, offset: 0 });
    assert.equal(done.env.data!.exit_code, 0, done.text);
    assert.match(String(done.env.data!.output), /got-yes[\s\S]*finished/);
    const idle = await callTool(client, 'observe', { view: 'session', remote_session_id: rs });
    assert.equal(idle.env.data!.foreground, null, idle.text);
  });

  it('python input(): status reports awaiting_input, and after the answer the command finishes', async (t) => {
    const started = Date.now();
    const id = await startPrompting(`python3 -c 'print("hello", input("name? "))'`);
    await pollUntil('status to report awaiting_input', async () => (await status(id)).env.data!.awaiting_input === true, SEEN_WITHIN_MS, 100);
    t.diagnostic(`python input(): awaiting_input seen by status ${Date.now() - started} ms after the run started`);
    const done = await execute({ action: 'stdin', execution_task_id: id, text: 'Ada', keys: ['Enter'], yield_time_ms: 30_000 });
    assert.equal(done.env.data!.exit_code, 0, done.text);
    assert.equal(done.env.data!.awaiting_input, false);
    assert.match(String(done.env.data!.output), /hello Ada$/);
  });

  it("the prompt's screen drops the spaces a program wrote to pad its rows (they filled the 4 KiB cap)", async () => {
    const r = await execute({ command: `python3 -c 'import sys; sys.stdout.write("top" + " " * 150 + "\\n"); input("x? ")'`, yield_time_ms: 30_000 });
    assert.equal(r.env.data!.awaiting_input, true, r.text);
    assert.equal(r.env.data!.screen, 'top\nx? ');
    const done = await execute({ action: 'stdin', execution_task_id: r.env.data!.execution_task_id, text: 'ok', keys: ['Enter'], yield_time_ms: 30_000 });
    assert.equal(done.env.data!.exit_code, 0, done.text);
  });

  it('a busy quiet command (sleep) is never reported as awaiting input', async () => {
    const id = await startPrompting('sleep 4; echo slept');
    // The watch checks at 1.5 s and 4.5 s of quiet: poll through the first check.
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      const r = await status(id);
      assert.equal(r.env.data!.awaiting_input, false, r.text);
      if (r.env.data!.state !== 'running') break;
      await pace(100); // paces the polls; nothing waits on it
    }
    const done = await execute({ action: 'attach', execution_task_id: id, yield_time_ms: 30_000 });
    assert.equal(done.env.data!.exit_code, 0, done.text);
  });
});
