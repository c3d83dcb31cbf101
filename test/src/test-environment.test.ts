/**
 * The tests do not depend on the caller's environment (issue 9, item 10): the runner gives them
 * their own — a developer's `HOLDFAST_HOME`, a `TMOUT`, a `BASH_ENV` or a locale in the shell that
 * runs `npm test` change nothing. Proven by running the policy tests that read the holdfast home
 * (`~/.holdfas[t]/config.yaml`) through the runner from such a shell.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from './_harness/home.js';

describe('the test runner and the caller environment', () => {
  const dir = mkdtempSync('/tmp/hf-env-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('npm test with HOLDFAST_HOME, TMOUT, BASH_ENV and LANG=C set still passes the policy tests', async () => {
    const bashEnv = join(dir, 'bash_env');
    writeFileSync(bashEnv, 'echo BASH_ENV-ran >&2; exit 3\n');
    const env: NodeJS.ProcessEnv = { ...process.env, HOLDFAST_HOME: join(dir, 'not-the-tests-home'), TMOUT: '1', BASH_ENV: bashEnv, LANG: 'C', LC_ALL: 'C' };
    delete env.NODE_TEST_CONTEXT; // a runner of its own, not a subtest of this one
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [join(REPO_ROOT, 'test', 'run-tests.mjs'), 'policy/builtins.test'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (c) => resolve({ code: c, out }));
    });
    assert.match(out, /^# fail 0$/m, out.slice(-3000));
    assert.equal(code, 0, out.slice(-3000));
  });
});
