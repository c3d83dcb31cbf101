import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

/**
 * Input meant for a running command never becomes a shell command (issue 5: nothing runs that
 * was not judged): whole lines still queued when the command ends are discarded before the next
 * prompt, and a partial line left for readline is cleared before the next command is typed.
 */
describe('execute stdin: type-ahead never reaches the shell', () => {
  const h = new TestHome();
  let s: ExecSession;
  before(async () => {
    s = await startExecSession(h);
  });
  after(() => h.cleanup());

  const ws = (name: string): string => join(h.workspace, name);

  it('a line typed while a command that does not read stdin runs is discarded when it ends', async () => {
    const r = await s.run({ command: 'sleep 1', yield_time_ms: 100 });
    assert.equal(r.env.status, 'accepted', r.text);
    const id = String(r.env.data.execution_task_id);
    const typed = await s.run({ action: 'stdin', execution_task_id: id, text: 'touch ta-line\n', yield_time_ms: 5000 });
    assert.notEqual(typed.env.status, 'failed', typed.text);
    await s.run({ action: 'attach', execution_task_id: id, yield_time_ms: 10_000 });
    const after = await s.run({ command: 'echo next' });
    assert.equal(after.env.data.output, 'next', after.text);
    assert.equal(existsSync(ws('ta-line')), false, 'the typed-ahead line must not have run');
  });

  it('the rest of a line after a one-character read is discarded', async () => {
    const r = await s.run({ command: 'read -n1 x; echo "got [$x]"', yield_time_ms: 3000 });
    assert.equal(r.env.data.awaiting_input, true, r.text);
    const id = String(r.env.data.execution_task_id);
    const answered = await s.run({ action: 'stdin', execution_task_id: id, text: 'ytouch ta-rest\n', yield_time_ms: 5000 });
    assert.match(String(answered.env.data.output), /got \[y\]/, answered.text);
    const after = await s.run({ command: 'echo next' });
    assert.equal(after.env.data.output, 'next', after.text);
    assert.equal(existsSync(ws('ta-rest')), false);
  });

  it('a partial line (no newline) left for readline is cleared before the next command', async () => {
    const r = await s.run({ command: 'sleep 1', yield_time_ms: 100 });
    const id = String(r.env.data.execution_task_id);
    await s.run({ action: 'stdin', execution_task_id: id, text: 'touch ta-partial; ', yield_time_ms: 100 });
    await s.run({ action: 'attach', execution_task_id: id, yield_time_ms: 10_000 });
    const after = await s.run({ command: 'echo next' });
    assert.equal(after.env.data.output, 'next', after.text);
    assert.equal(after.env.data.exit_code, 0);
    assert.equal(existsSync(ws('ta-partial')), false);
  });
});
