import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

/**
 * What `execute` hands the policy besides the command line (issue 5): the `env` argument is judged
 * with the command (one verdict — a risky variable asks for confirmation like a risky command, a
 * value with control characters is refused before anything runs), and `stdin` text is judged before
 * it is sent (one line of answer; what would reach the shell after it is refused).
 */
describe('execute: env judged with the command, stdin judged before it is sent', () => {
  const h = new TestHome();
  let s: ExecSession;

  before(async () => {
    s = await startExecSession(h);
  });
  after(() => h.cleanup());

  const audit = (): { event: string; text?: string; chars?: number }[] =>
    readFileSync(h.layout.auditLog, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { event: string });

  it('a risky env variable makes an allowed command wait for confirmation; a control character in a value is refused', async () => {
    const plain = await s.run({ command: 'echo "v=$HF_PLAIN"', env: { HF_PLAIN: 'fine' } });
    assert.equal(plain.env.data.output, 'v=fine', plain.text);

    const hooked = await s.run({ command: 'touch env-hooked', env: { LD_PRELOAD: '/tmp/not-a-library.so' } });
    assert.equal(hooked.env.status, 'waiting_confirmation', hooked.text);
    assert.match(JSON.stringify(hooked.env.data.policy), /LD_PRELOAD/);
    assert.equal(existsSync(join(h.workspace, 'env-hooked')), false);

    const control = await s.run({ command: 'touch env-control', env: { HF_X: 'a\u0007b' } });
    assert.equal(control.env.status, 'failed', control.text);
    assert.equal(control.env.error!.code, 'POLICY_DENIED');
    assert.equal(existsSync(join(h.workspace, 'env-control')), false);
  });

  it('stdin with a second line is refused before anything reaches the terminal; one line is answered', async () => {
    const r = await s.run({ command: "read -p 'Answer? ' a; echo got $a", yield_time_ms: 30_000 });
    assert.equal(r.env.data.awaiting_input, true, r.text);
    const id = r.env.data.execution_task_id as string;

    const smuggled = await s.run({ action: 'stdin', execution_task_id: id, text: 'yes\ntouch stdin-smuggled\n' });
    assert.equal(smuggled.env.status, 'failed', smuggled.text);
    assert.equal(smuggled.env.error!.code, 'POLICY_DENIED');
    const refused = audit().filter((l) => l.event === 'execute.stdin_refused');
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.chars, 'yes\ntouch stdin-smuggled\n'.length);
    assert.ok(!readFileSync(h.layout.auditLog, 'utf8').includes('stdin-smuggled'), 'the audit log never holds typed text');

    const answered = await s.run({ action: 'stdin', execution_task_id: id, text: 'yes', keys: ['Enter'] });
    assert.equal(answered.env.data.exit_code, 0, answered.text);
    assert.match(answered.env.data.output, /got yes$/);
    await s.run({ command: 'true' });
    assert.equal(existsSync(join(h.workspace, 'stdin-smuggled')), false, 'the second line never ran');
  });
});
