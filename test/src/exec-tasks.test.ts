import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT, TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

describe('project tasks and diagnostics (issue 5)', () => {
  const h = new TestHome();
  let call: ExecSession['call'];
  let rs: string;
  let run: ExecSession['run'];

  before(async () => {
    const ws = (p: string, text: string) => writeFileSync(join(h.workspace, p), text);
    ws('package.json', JSON.stringify({ scripts: { typecheck: `node ${TSC} --noEmit --strict --pretty false bad.ts`, hello: 'echo hello from npm' } }));
    ws('bad.ts', 'const x: number = "a";\nexport {};\n');
    ws('Makefile', 'broken:\n\tgcc -fdiagnostics-color=never -c broken.c -o /dev/null\n');
    ws('broken.c', 'int main(void) { return 0 }\n');
    ws('.holdfast.yaml', 'tasks:\n  greet:\n    command: echo hi from holdfast.yaml\n');
    ({ call, rs, run } = await startExecSession(h));
  });
  after(() => h.cleanup());

  it('runtime_read(view="project") lists the tasks', async () => {
    const r = await call('runtime_read', { view: 'project', remote_session_id: rs });
    assert.equal(r.env.status, 'succeeded', r.text);
    const q = (r.env.data.tasks as { qualified: string }[]).map((t) => t.qualified);
    assert.deepEqual(q, ['holdfast:greet', 'npm:typecheck', 'npm:hello', 'make:broken']);
  });

  it('a task runs in the terminal and tsc output becomes diagnostics', async () => {
    const r = await run({ task: 'typecheck', yield_time_ms: 60_000 });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.notEqual(r.env.data.exit_code, 0);
    assert.equal(r.env.data.task, 'npm:typecheck');
    assert.deepEqual(
      r.env.data.diagnostics.map((d: Record<string, unknown>) => [d.file, d.line, d.column, d.severity, d.code]),
      [['bad.ts', 1, 7, 'error', 'TS2322']],
    );
  });

  it('gcc errors from a Makefile target become diagnostics; .holdfast.yaml tasks run by plain name', async () => {
    const r = await run({ task: 'make:broken', yield_time_ms: 60_000 });
    assert.ok(r.env.data.diagnostics.some((d: Record<string, unknown>) => d.file === 'broken.c' && d.line === 1 && d.severity === 'error'), JSON.stringify(r.env.data.diagnostics));
    const g = await run({ task: 'greet' });
    assert.equal(g.env.data.output, 'hi from holdfast.yaml');
    const unknown = await run({ task: 'nope' });
    assert.equal(unknown.env.error!.code, 'BAD_REQUEST');
    assert.match(unknown.env.error!.message, /npm:hello/);
  });

  it('tasks go through the command policy', async () => {
    writeFileSync(join(h.workspace, '.holdfast.yaml'), 'tasks:\n  ship: git push origin main\n');
    const r = await run({ task: 'ship' });
    assert.equal(r.env.status, 'waiting_confirmation');
  });

  it('an npm task is judged by its script bodies, pre and post scripts included', async () => {
    writeFileSync(
      join(h.workspace, 'package.json'),
      JSON.stringify({ scripts: { release: 'echo releasing', prerelease: 'git push origin main', clean: 'echo cleaning', postclean: 'if false; then rm -rf /; fi' } }),
    );
    const pushed = await run({ task: 'npm:release' });
    assert.equal(pushed.env.status, 'waiting_confirmation', pushed.text);
    const wiped = await run({ task: 'npm:clean' });
    assert.equal(wiped.env.status, 'failed', wiped.text);
    assert.equal(wiped.env.error!.code, 'POLICY_DENIED');
  });
});
