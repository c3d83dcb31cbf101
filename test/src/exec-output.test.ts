import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OutputLimits } from '@holdfast/shared/constants';
import { pollUntil, TestHome } from './_harness/home.js';
import { openSession, startExecSession, toolCaller } from './_harness/tools.js';
import { callAfter, moreCall } from './_harness/text-calls.js';

describe('execute output: caps, offsets, argv, piped tasks (issue 5)', () => {
  const h = new TestHome();
  let call: ReturnType<typeof toolCaller>;
  let rs: string;
  let c: ReturnType<TestHome['client']>;
  const run = (args: Record<string, unknown>) => call('execute', { remote_session_id: rs, ...args });
  const observe = (args: Record<string, unknown>) => call('observe', { remote_session_id: rs, ...args });

  before(async () => {
    ({ client: c, call, rs } = await startExecSession(h));
  });
  after(() => h.cleanup());

  it('seq 1 2000000 comes back capped with the marker, and the full log reads back by offset', async () => {
    const r = await run({ command: 'seq 1 2000000', yield_time_ms: 60_000 });
    assert.equal(r.env.data.exit_code, 0, r.text.slice(0, 500));
    const out = r.env.data.output as string;
    assert.ok(Buffer.byteLength(out) <= 64 * 1024 + 300, `capped (${Buffer.byteLength(out)} bytes)`);
    assert.equal(r.env.data.truncated, true);
    assert.match(out, /^\[output head dropped: showing the last \d+ bytes of \d+; full log: holdfast:\/\/remote-sessions\/rs_\w+\/tasks\/task_\w+\/logs \(observe view=logs\)\]\n/);
    assert.ok(out.endsWith('\n1999999\n2000000'));
    assert.ok(Buffer.byteLength(r.text) <= OutputLimits.TEXT_BLOCK_MAX_BYTES + 1024, 'the text block repeats at most TEXT_BLOCK_MAX_BYTES (16 KiB)');
    assert.ok(!JSON.stringify(r.env).includes(r.text.slice(-2000) + r.text.slice(-2000)), 'no field repeats the text twice');

    // Page through the whole log by offset, starting where the continuation action says.
    const more = r.env.actions.find((a) => a.tool === 'observe' && a.arguments.view === 'logs');
    assert.ok(more, 'a continuation action to read from the start');
    let offset = more.arguments.stdout_offset as number;
    let expected = 1;
    let pages = 0;
    for (;;) {
      const page = await observe({ view: 'logs', execution_task_id: r.env.data.execution_task_id, stdout_offset: offset, max_bytes: 1024 * 1024 });
      assert.equal(page.env.status, 'succeeded', page.text.slice(0, 300));
      const p = page.env.data.stdout;
      assert.equal(p.offset, offset, 'pages are contiguous');
      assert.equal(p.gap, false);
      for (const line of (p.text as string).split('\n')) {
        if (line === '') continue;
        assert.equal(line, String(expected), `line ${expected}`);
        expected++;
      }
      offset = p.next_offset;
      pages++;
      if (page.env.data.complete) break;
      assert.equal(page.env.actions[0]!.arguments.stdout_offset, offset);
    }
    assert.equal(expected, 2_000_001, 'every number exactly once');
    assert.ok(pages >= 14);
  });

  it('large output pages to the end by the text blocks alone: execute and observe(view="logs") name the exact calls', async () => {
    // A client that gives the model only the text block (DESIGN §6.3) saw "last 16 KiB shown here;
    // see structuredContent.data and holdfast://…" with the paging call only in actions.
    const r = await run({ command: 'seq 1 40000', yield_time_ms: 60_000 });
    assert.equal(r.env.data.exit_code, 0, r.text.slice(0, 500));
    const id = r.env.data.execution_task_id as string;
    const start = callAfter(r.text, 'page by page: ');
    assert.ok(start, `the text names the call that reads the output from its start: ${r.text.slice(0, 400)}`);
    assert.equal(start.tool, 'observe');
    assert.equal(start.args.view, 'logs');
    assert.equal(start.args.execution_task_id, id);
    let args: Record<string, unknown> | null = { remote_session_id: rs, ...start.args };
    let expected = 1;
    let pages = 0;
    while (args) {
      assert.ok(++pages < 100, 'the text calls make progress');
      const page = await call('observe', args);
      assert.equal(page.env.status, 'succeeded', page.text.slice(0, 300));
      assert.ok(!page.text.includes('shown here'), `a page the text named fits its text block: ${page.text.slice(0, 300)}`);
      const next = moreCall(page.text);
      assert.equal(next === null, page.env.data.complete === true, `a next call in the text until the output is read: ${page.text.slice(-300)}`);
      for (const line of page.text.split('\n').slice(1)) {
        if (line === '' || line.startsWith('[more: ')) continue;
        assert.equal(line, String(expected), `line ${expected}`);
        expected++;
      }
      args = next ? { remote_session_id: rs, ...next.args } : null;
    }
    assert.equal(expected, 40_001, 'every number exactly once, from the text blocks alone');
    // A page larger than the text block names the call that reads it in pages that fit.
    const big = await observe({ view: 'logs', execution_task_id: id, stdout_offset: start.args.stdout_offset });
    assert.match(big.text, /last 16 KiB of this page shown here/);
    const again = callAfter(big.text, 'in pages that fit here with ');
    assert.ok(again, big.text.slice(0, 400));
    assert.deepEqual(again.args, { ...start.args });
  });

  it('history pages to the end by its text blocks alone', async () => {
    for (let i = 0; i < 5; i++) await run({ command: `echo history-${i}` });
    const all = await observe({ view: 'history', tool: 'execute', limit: 200 });
    let args: Record<string, unknown> | null = { remote_session_id: rs, view: 'history', tool: 'execute', limit: 2 };
    let events = 0;
    for (let pages = 1; args; pages++) {
      assert.ok(pages < 200, 'the text calls make progress');
      const page = await call('observe', args);
      assert.doesNotMatch(page.text, /see actions/);
      events += page.text.split('\n').filter((l) => /^#\d+ /.test(l)).length;
      const next = moreCall(page.text);
      assert.equal(next === null, page.env.actions.length === 0, page.text);
      args = next ? { remote_session_id: rs, ...next.args } : null;
    }
    assert.equal(events, (all.env.data.events as unknown[]).length);
  });

  it('argv runs the exact vector: empty arguments, spaces and non-ASCII kept', async () => {
    const r = await run({ argv: ['printf', '%s|', '', 'a b', '名前'], shell: false });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(r.env.data.kind, 'argv');
    assert.equal(r.env.data.stdout, '|a b|名前|');
    assert.equal(r.env.data.exit_code, 0);
    const bad = await run({ argv: ['printf', 'x'] });
    assert.equal(bad.env.error!.code, 'BAD_REQUEST', 'argv needs shell=false');
  });

  it('a background task is readable after it exits: output, exit code, end time, log resource', async () => {
    const r = await run({ command: 'printf done; exit 3', background: true });
    const id = r.env.data.execution_task_id as string;
    assert.ok(['accepted', 'succeeded'].includes(r.env.status));
    const st = await pollUntil('the task to exit', async () => {
      const s = await run({ action: 'status', execution_task_id: id, offset: 0 });
      return s.env.data.state === 'exited' ? s : null;
    });
    assert.equal(st.env.data.stdout, 'done');
    assert.equal(st.env.data.exit_code, 3);
    assert.ok(st.env.data.ended_at >= st.env.data.started_at);
    const logs = await observe({ view: 'logs', execution_task_id: id });
    assert.equal(logs.env.data.stdout.text, 'done');
    assert.deepEqual(logs.env.data.next_offsets, { stdout: 4, stderr: 0 });
    assert.equal(logs.env.data.complete, true);
    const res = await c.call('resource.read', { uri: `holdfast://remote-sessions/${rs}/tasks/${id}/logs`, principal: 'p' });
    assert.deepEqual(res.contents, [{ uri: `holdfast://remote-sessions/${rs}/tasks/${id}/logs`, mimeType: 'text/plain', text: 'done' }]);
    await assert.rejects(c.call('resource.read', { uri: `holdfast://remote-sessions/${rs}/tasks/${id}/logs`, principal: 'mallory' }), /SESSION_NOT_FOUND|no session/);
    const list = await c.call('resource.list', { principal: 'p' });
    assert.ok(list.resources.some((x) => x.uri.endsWith(`/tasks/${id}/logs`)));
  });

  it('piped tasks keep stdout and stderr apart', async () => {
    const r = await run({ command: 'echo to-out; echo to-err >&2; exit 1', background: true });
    const id = r.env.data.execution_task_id as string;
    // offset 0: both streams from their start, whatever the first answer already showed (issue 8).
    const done = await run({ action: 'attach', execution_task_id: id, yield_time_ms: 10_000, offset: 0 });
    assert.equal(done.env.data.stdout, 'to-out');
    assert.equal(done.env.data.stderr, 'to-err');
    assert.equal(done.env.data.exit_code, 1);
    assert.equal(done.env.data.output, undefined, 'no third copy of the same text');
    assert.match(done.text, /to-out\n\[stderr\]\nto-err\n\[exit code 1\]/);
  });

  it('one session flooding output does not slow another session down', async () => {
    const c2 = h.client();
    const call2 = toolCaller(c2, 'p2');
    const rs2 = await openSession(c2, 'p2');
    await call2('execute', { remote_session_id: rs2, command: 'true', yield_time_ms: 30_000 });
    const flood = await run({ command: 'yes flood-line-of-text', yield_time_ms: 100 });
    assert.equal(flood.env.status, 'accepted');
    try {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = Date.now();
        const ok = await call2('execute', { remote_session_id: rs2, command: 'echo ok' });
        times.push(Date.now() - t);
        assert.equal(ok.env.data.output, 'ok');
      }
      assert.ok(Math.max(...times) < 1000, `echo ok answered in ${times.join(', ')} ms during the flood`);
    } finally {
      const stopped = await run({ action: 'stop', execution_task_id: flood.env.data.execution_task_id });
      assert.equal(stopped.env.data.state, 'exited');
      assert.ok(Buffer.byteLength(stopped.env.data.output) <= 64 * 1024 + 300, 'the flood comes back capped');
    }
  });
});
