import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { pollUntil, TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

/**
 * `execute` with an `idempotency_key` (issue 5): the same call again — while the first one is
 * still waiting, or after it finished — returns the task the first one started (waiting on it
 * like attach), marked `hints.idempotent_replay`; it never starts the command twice and never
 * leaves a stray row. The same key with other arguments is IDEMPOTENCY_CONFLICT.
 */
describe('execute idempotency_key (issue 5)', () => {
  const h = new TestHome();
  let s: ExecSession;

  before(async () => {
    s = await startExecSession(h);
  });
  after(() => h.cleanup());

  const tasks = async (): Promise<{ execution_task_id: string; state: string; command?: string }[]> =>
    (await s.call('observe', { view: 'session', remote_session_id: s.rs })).env.data.tasks;
  const runLines = (): { event: string; execution_task_id?: string; command?: string }[] =>
    readFileSync(h.layout.auditLog, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { event: string; execution_task_id?: string; command?: string })
      .filter((l) => l.event === 'execute.run');

  it('the same call while the first still waits gets the same task, not COMMAND_ALREADY_RUNNING', async () => {
    const args = { command: 'sleep 3; echo IDEM2', yield_time_ms: 8000, idempotency_key: 'K-wait' };
    const first = s.run(args);
    // Once the first call's task runs in the terminal, the retry comes in (as after a lost answer).
    const running = await pollUntil('the first call to run', async () => (await tasks()).find((t) => t.command === args.command && t.state === 'running'), 10_000);
    const second = await s.run(args);
    const firstDone = await first;
    assert.equal(firstDone.env.status, 'succeeded', firstDone.text);
    assert.equal(firstDone.env.data.output, 'IDEM2');
    assert.equal(second.env.status, 'succeeded', second.text);
    assert.equal(second.env.error, null);
    assert.equal(second.env.data.execution_task_id, running.execution_task_id, 'the retry returns the first task');
    assert.equal(second.env.data.output, 'IDEM2');
    assert.equal(second.env.data.exit_code, 0);
    assert.equal(second.env.hints.idempotent_replay, true);
    assert.equal(firstDone.env.hints.idempotent_replay, undefined, 'the first answer is no replay');

    // After completion: the same task again, at once, still marked as a replay.
    const later = await s.run(args);
    assert.equal(later.env.data.execution_task_id, running.execution_task_id);
    assert.equal(later.env.data.output, 'IDEM2');
    assert.equal(later.env.hints.idempotent_replay, true);

    const rows = (await tasks()).filter((t) => t.command === args.command);
    assert.deepEqual(rows.map((t) => t.state), ['exited'], 'one row, no stray failed one');
    assert.equal(runLines().filter((l) => l.command === args.command).length, 1, 'it ran once');
  });

  it('two identical calls arriving together start one command', async () => {
    const args = { command: 'sleep 1; echo TOGETHER', yield_time_ms: 8000, idempotency_key: 'K-together' };
    const [a, b] = await Promise.all([s.run(args), s.run(args)]);
    for (const r of [a, b]) {
      assert.equal(r.env.status, 'succeeded', r.text);
      assert.equal(r.env.data.output, 'TOGETHER');
    }
    assert.equal(a.env.data.execution_task_id, b.env.data.execution_task_id);
    assert.equal([a, b].filter((r) => r.env.hints.idempotent_replay === true).length, 1, 'exactly one of them is the replay');
    const rows = (await tasks()).filter((t) => t.command === args.command);
    assert.equal(rows.length, 1, JSON.stringify(rows));
  });

  it('a background run replays its task without waiting', async () => {
    const args = { command: 'sleep 1; echo BG-ONCE', background: true, idempotency_key: 'K-bg' };
    const first = await s.run(args);
    const again = await s.run({ ...args, yield_time_ms: 5000 });
    assert.equal(again.env.data.execution_task_id, first.env.data.execution_task_id);
    assert.equal(again.env.hints.idempotent_replay, true);
    // offset 0: its whole output, whatever the replay already showed (issue 8).
    const done = await s.run({ action: 'attach', execution_task_id: first.env.data.execution_task_id, yield_time_ms: 10_000, offset: 0 });
    assert.equal(done.env.data.stdout, 'BG-ONCE');
  });

  it('the same key with other arguments is IDEMPOTENCY_CONFLICT, and nothing runs', async () => {
    const first = await s.run({ command: 'echo ONE', idempotency_key: 'K-conflict' });
    assert.equal(first.env.data.output, 'ONE');
    const other = await s.run({ command: 'echo TWO', idempotency_key: 'K-conflict' });
    assert.equal(other.env.status, 'failed');
    assert.equal(other.env.error!.code, 'IDEMPOTENCY_CONFLICT');
    assert.equal(other.env.error!.retryable, false);
    assert.equal((await tasks()).filter((t) => t.command === 'echo TWO').length, 0);
  });

  it('without a key a second foreground command still gets COMMAND_ALREADY_RUNNING', async () => {
    const long = await s.run({ command: 'sleep 30', yield_time_ms: 100 });
    assert.equal(long.env.status, 'accepted');
    const second = await s.run({ command: 'echo NOPE' });
    assert.equal(second.env.error!.code, 'COMMAND_ALREADY_RUNNING');
    const stopped = await s.run({ action: 'stop', execution_task_id: long.env.data.execution_task_id });
    assert.equal(stopped.env.data.state, 'exited');
  });
});
