import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

describe('a command longer than any client timeout (issue 5, field failure #3)', () => {
  const h = new TestHome();
  let call: ExecSession['call'];
  let rs: string;
  let run: ExecSession['run'];

  before(async () => {
    ({ call, rs, run } = await startExecSession(h));
  });
  after(() => h.cleanup());

  it('`sleep 70; echo AFTER` returns early with a task id; a later attach shows AFTER and exit 0', async () => {
    const started = Date.now();
    const r = await run({ command: 'sleep 70; echo AFTER' });
    const waited = Date.now() - started;
    assert.equal(r.env.status, 'accepted', r.text);
    assert.ok(waited >= 9_000 && waited < 20_000, `returned after the default 10 s yield (${waited} ms)`);
    const id = r.env.data.execution_task_id as string;
    assert.match(id, /^task_[0-9A-Z]{26}$/);
    assert.equal(r.env.context.execution_task_id, id);
    assert.deepEqual(
      r.env.actions.map((a) => [a.tool, a.arguments.action ?? a.arguments.view]),
      [['execute', 'attach'], ['observe', 'logs'], ['execute', 'stop']],
    );
    const attach = r.env.actions[0]!;
    let done = await call(attach.tool, { ...attach.arguments, yield_time_ms: 40_000 });
    assert.equal(done.env.status, 'accepted', 'still running after 50 s');
    done = await call(attach.tool, { ...attach.arguments, yield_time_ms: 40_000 });
    assert.equal(done.env.status, 'succeeded', done.text);
    assert.equal(done.env.data.output, 'AFTER');
    assert.equal(done.env.data.exit_code, 0);
    assert.ok(Date.now() - started >= 70_000);
  });
});
