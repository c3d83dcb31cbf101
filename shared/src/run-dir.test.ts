import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { privateDirProblem } from './run-dir.js';

describe('private run folders (issue 18)', () => {
  const base = mkdtempSync('/tmp/hf-rundir-');
  after(() => rmSync(base, { recursive: true, force: true }));

  it('accepts a 0700 folder of ours under parents nobody else can write (or sticky /tmp)', () => {
    const d = join(base, 'ok');
    mkdirSync(d, { mode: 0o700 });
    assert.equal(privateDirProblem(d), null);
  });

  it('refuses a folder others can enter, a symlink, and one under a group-writable parent', () => {
    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    assert.match(privateDirProblem(open) ?? '', /mode 0755/);
    const link = join(base, 'link');
    symlinkSync(join(base, 'ok'), link);
    assert.match(privateDirProblem(link) ?? '', /symbolic link/);
    const shared = join(base, 'shared');
    mkdirSync(join(shared, 'run'), { recursive: true, mode: 0o700 });
    chmodSync(shared, 0o775);
    assert.match(privateDirProblem(join(shared, 'run')) ?? '', /writable by its group/);
    chmodSync(shared, 0o1777);
    assert.equal(privateDirProblem(join(shared, 'run')), null, 'a sticky parent is fine');
  });

  it('refuses a folder of another uid', () => {
    const d = join(base, 'ok');
    assert.match(privateDirProblem(d, 4242) ?? '', /belongs to uid/);
  });
});
