import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pollUntil, TestHome } from './_harness/home.js';
import { startExecSession, toolCaller } from './_harness/tools.js';

describe('tasks outlive the daemon; nothing outlives its session (issue 5)', () => {
  const h = new TestHome();
  let call: ReturnType<typeof toolCaller>;
  let rs: string;
  const run = (args: Record<string, unknown>) => call('execute', { remote_session_id: rs, ...args });
  const sleeps = (n: number) => h.processes().filter((p) => p.cmd === `sleep ${n}`);

  before(async () => {
    ({ call, rs } = await startExecSession(h));
  });
  after(() => h.cleanup());

  it('a task started before `holdfast restart-daemon` is attachable after it', async () => {
    const finished = await run({ command: 'echo before-restart; bash -c "exit 4"' });
    assert.equal(finished.env.data.exit_code, 4);
    const fg = await run({ command: 'sleep 2; echo FG-AFTER', yield_time_ms: 100 });
    assert.equal(fg.env.status, 'accepted');
    const bg = await run({ command: 'sleep 2; echo BG-AFTER; exit 5', background: true });

    const restart = await h.cli(['restart-daemon']);
    assert.equal(restart.code, 0, restart.stderr);
    const c2 = h.client();
    call = toolCaller(c2);

    const fgDone = await run({ action: 'attach', execution_task_id: fg.env.data.execution_task_id, yield_time_ms: 20_000, offset: 0 });
    assert.equal(fgDone.env.data.output, 'FG-AFTER', fgDone.text);
    assert.equal(fgDone.env.data.exit_code, 0);
    const bgDone = await run({ action: 'attach', execution_task_id: bg.env.data.execution_task_id, yield_time_ms: 20_000, offset: 0 });
    assert.equal(bgDone.env.data.stdout, 'BG-AFTER', bgDone.text);
    assert.equal(bgDone.env.data.exit_code, 5);
    // Its output from the start (offset 0): the run's own result showed it already (issue 8).
    const old = await run({ action: 'status', execution_task_id: finished.env.data.execution_task_id, offset: 0 });
    assert.equal(old.env.data.output, 'before-restart');
    assert.equal(old.env.data.exit_code, 4);
  });

  it('observe shows the session, a task, and the history of calls', async () => {
    const s = await call('observe', { view: 'session', remote_session_id: rs });
    assert.equal(s.env.data.session.state, 'running');
    assert.ok(s.env.data.shell.pid > 0);
    assert.equal(typeof s.env.data.cwd, 'string');
    assert.equal(typeof s.env.data.clock.last_instruction_at, 'number');
    assert.ok(s.env.data.tasks.length >= 3);
    const id = s.env.data.tasks[0].execution_task_id as string;
    const t = await call('observe', { view: 'task', remote_session_id: rs, execution_task_id: id });
    assert.equal(t.env.data.execution_task_id, id);
    assert.match(t.env.data.log_uri, /^holdfast:\/\/remote-sessions\/rs_\w+\/tasks\/task_\w+\/logs$/);

    const page1 = await call('observe', { view: 'history', remote_session_id: rs, tool: 'execute', limit: 2 });
    assert.equal(page1.env.data.events.length, 2);
    assert.ok(page1.env.data.events.every((e: { tool: string }) => e.tool === 'execute'));
    assert.equal(page1.env.data.more, true);
    const next = page1.env.actions[0]!;
    const page2 = await call(next.tool, next.arguments);
    assert.ok(page2.env.data.events[0].seq < page1.env.data.events[1].seq, 'paged by sequence, newest first (issue 8)');
    const failed = await call('observe', { view: 'history', remote_session_id: rs, status: 'failed' });
    assert.ok(failed.env.data.events.every((e: { status: string }) => e.status === 'failed'));
    const wsHistory = await call('observe', { view: 'history', remote_session_id: rs, scope: 'workspace' });
    assert.ok(wsHistory.env.data.events.some((e: { kind: string }) => e.kind === 'session.created'));
  });

  it('killing the session leaves neither a Popen-ed sleep nor a background sleep alive; their logs stay readable', async () => {
    // A script file: inline code that starts a program needs confirmation (policy review round 6).
    const popen = await run({ command: `printf '%s\\n' 'import subprocess' "subprocess.Popen(['sleep','1000'])" > popen.py && python3 popen.py` });
    assert.equal(popen.env.data.exit_code, 0, popen.text);
    const bg = await run({ command: 'echo bg-started; sleep 1001', background: true });
    await pollUntil('both sleeps to run', () => sleeps(1000).length === 1 && sleeps(1001).length === 1);

    const c = h.client();
    await c.call('session.kill', { id: rs });
    await pollUntil('both sleeps to be gone', () => sleeps(1000).length === 0 && sleeps(1001).length === 0, 10_000);

    const st = await pollUntil('the task to be final', async () => {
      const r = await run({ action: 'status', execution_task_id: bg.env.data.execution_task_id, offset: 0 });
      return r.env.data.state !== 'running' ? r : null;
    });
    assert.ok(['exited', 'interrupted'].includes(st.env.data.state), st.text);
    assert.equal(st.env.data.stdout, 'bg-started', 'readable after its guardian is gone');
    const logs = await call('observe', { view: 'logs', remote_session_id: rs, execution_task_id: popen.env.data.execution_task_id });
    assert.equal(logs.env.data.complete, true);
    const refused = await run({ command: 'echo x' });
    assert.equal(refused.env.error!.code, 'SESSION_EXITED');
  });
});
