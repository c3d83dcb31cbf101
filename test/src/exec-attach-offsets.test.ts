import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

/**
 * Issue 8 item 8 (results that repeat themselves) and the `execute` parts of items 9 and 10:
 * `attach`/`status`/`stdin` return only output the caller has not seen (from `offset`, default
 * where the last result ended), the awaiting-input screen is the command's own region (capped),
 * and `reset_shell` reports the shell that stays.
 */
describe('execute: unseen output, command screen, empty keys, reset pid (issue 8)', () => {
  const h = new TestHome();
  let s: ExecSession;
  before(async () => {
    s = await startExecSession(h);
  });
  after(async () => {
    await h.cleanup();
  });

  it('attach and stdin return only what the last result did not show; offset=0 shows everything', async () => {
    await s.run({ command: 'echo EARLIER-COMMAND-OUTPUT', yield_time_ms: 10_000 });
    const first = await s.run({ command: 'echo alpha-line; read a; echo beta-$a; read b; echo gamma-$b', yield_time_ms: 10_000 });
    assert.equal(first.env.status, 'accepted', first.text);
    assert.equal(first.env.data.awaiting_input, true, first.text);
    const id = first.env.data.execution_task_id as string;
    assert.match(first.env.data.output, /alpha-line/);
    // The screen is this command's region: not the earlier command, not the line that started it.
    assert.match(first.env.data.screen, /alpha-line/);
    assert.doesNotMatch(first.env.data.screen, /EARLIER-COMMAND-OUTPUT/);
    assert.doesNotMatch(first.env.data.screen, /read a;/);

    const second = await s.run({ action: 'stdin', execution_task_id: id, text: 'x', keys: ['Enter'], yield_time_ms: 10_000 });
    assert.equal(second.env.data.awaiting_input, true, second.text);
    assert.match(second.env.data.output, /beta-x/);
    assert.doesNotMatch(second.env.data.output, /alpha-line/, 'alpha was in the first result');
    assert.ok(second.env.data.output_offset > first.env.data.output_offset, 'it starts later in the log');
    assert.equal(second.env.data.output_offset, first.env.data.next_offset, 'exactly where the first result ended');

    const again = await s.run({ action: 'attach', execution_task_id: id, yield_time_ms: 500 });
    assert.doesNotMatch(again.env.data.output, /alpha-line|beta-x/, 'nothing new since the last result');
    assert.match(again.text, /No new output|awaiting|Waiting for input/i);

    const all = await s.run({ action: 'status', execution_task_id: id, offset: 0 });
    assert.match(all.env.data.output, /alpha-line[\s\S]*beta-x/);

    const done = await s.run({ action: 'stdin', execution_task_id: id, text: 'y', keys: ['Enter'], yield_time_ms: 10_000 });
    assert.equal(done.env.data.state, 'exited', done.text);
    assert.match(done.env.data.output, /gamma-y/);
    assert.doesNotMatch(done.env.data.output, /beta-x/);
    assert.match(done.text, /\[exit code 0\]/);

    // From an offset the caller kept: the output after it.
    const from = await s.run({ action: 'status', execution_task_id: id, offset: second.env.data.next_offset });
    assert.match(from.env.data.output, /gamma-y/);
    assert.doesNotMatch(from.env.data.output, /beta-x/);
  });

  it('a full-screen program awaiting input shows its own screen, capped', async () => {
    await s.run({ command: 'for i in $(seq 1 80); do echo "scrollback-line-$i"; done', yield_time_ms: 10_000 });
    const app = `python3 -c "import curses; curses.wrapper(lambda w: (w.addstr(0, 0, 'FULLSCREEN-APP press a key'), w.refresh(), w.getch()))"`;
    const r = await s.run({ command: app, yield_time_ms: 10_000 });
    assert.equal(r.env.data.awaiting_input, true, r.text);
    const screen = r.env.data.screen as string;
    assert.match(screen, /FULLSCREEN-APP/);
    assert.doesNotMatch(screen, /scrollback-line/);
    assert.ok(screen.split('\n').length <= 40, `${screen.split('\n').length} lines`);
    assert.ok(Buffer.byteLength(screen) <= 4096);
    const done = await s.run({ action: 'stdin', execution_task_id: r.env.data.execution_task_id, keys: ['Enter'], yield_time_ms: 10_000 });
    assert.equal(done.env.data.state, 'exited', done.text);
  });

  it('a piped task: attach continues each stream after what was shown', async () => {
    const bg = await s.run({ command: 'echo out-one; echo err-one >&2; while [ ! -e piped-gate ]; do sleep 0.05; done; echo out-two; echo err-two >&2', background: true });
    const id = bg.env.data.execution_task_id as string;
    let seen = '';
    for (let i = 0; i < 100 && !seen.includes('out-one'); i++) {
      const r = await s.run({ action: 'attach', execution_task_id: id, yield_time_ms: 200 });
      assert.equal(r.env.data.state, 'running', r.text);
      seen += r.env.data.stdout as string;
    }
    assert.match(seen, /out-one/);
    await s.run({ command: 'touch piped-gate', yield_time_ms: 10_000 });
    const done = await s.run({ action: 'attach', execution_task_id: id, yield_time_ms: 10_000 });
    assert.equal(done.env.data.state, 'exited', done.text);
    assert.match(done.env.data.stdout, /out-two/);
    assert.doesNotMatch(done.env.data.stdout, /out-one/, 'out-one was in an earlier result');
    assert.match(done.env.data.stderr, /err-two/);
    const everything = await s.run({ action: 'status', execution_task_id: id, offset: 0 });
    assert.match(everything.env.data.stdout, /out-one[\s\S]*out-two/);
    assert.match(everything.env.data.stderr, /err-one[\s\S]*err-two/);
  });

  it('an empty idempotency_key is refused, not shared across commands', async () => {
    for (const command of ['echo one', 'echo two']) {
      const r = await s.run({ command, idempotency_key: '' });
      assert.equal(r.isError, true);
      assert.equal(r.env.error?.code, 'BAD_REQUEST', r.text);
      assert.match(r.env.error!.message, /idempotency_key/);
    }
  });

  it('env as NAME=value strings (what the schema advertises) or as an object', async () => {
    const a = await s.run({ command: 'echo "[$GREETING]"', env: ['GREETING=hi there'], yield_time_ms: 10_000 });
    assert.match(a.env.data.output, /\[hi there\]/);
    const b = await s.run({ command: 'echo "[$GREETING]"', env: { GREETING: 'object form' }, yield_time_ms: 10_000 });
    assert.match(b.env.data.output, /\[object form\]/);
    const bad = await s.run({ command: 'true', env: ['NOEQUALS'] });
    assert.equal(bad.env.error?.code, 'BAD_REQUEST', bad.text);
  });

  it('reset_shell reports the pid of the shell that is there to run commands', async () => {
    const r = await s.call('session', { action: 'reset_shell', remote_session_id: s.rs });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(r.env.data.shell_ready, true, r.text);
    const pid = await s.run({ command: 'echo $$', yield_time_ms: 10_000 });
    assert.equal(Number(pid.env.data.output.trim()), r.env.data.shell_pid, r.text);
    assert.match(r.text, new RegExp(`new shell pid ${r.env.data.shell_pid}`));
  });
});
