import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeFileAtomic } from './atomic-write.js';
import { lstatBeneath, openDirBeneath } from './beneath.js';
import { openRegularFile } from './file-kind.js';
import { resolveWorkspacePath } from './workspace-path.js';

describe('opening workspace paths without following symlinks (issue 18)', () => {
  const base = realpathSync(mkdtempSync('/tmp/hf-beneath-'));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'sub', 'f.txt'), 'inside');
  writeFileSync(join(outside, 'f.txt'), 'SECRET');
  after(() => rmSync(base, { recursive: true, force: true }));

  /** Checks a path, then swaps its folder for a symlink to the outside (the race, made deterministic). */
  const checkThenSwap = (rel: string): ReturnType<typeof resolveWorkspacePath> => {
    const p = resolveWorkspacePath(root, rel);
    renameSync(join(root, 'sub'), join(root, 'sub.real'));
    symlinkSync(outside, join(root, 'sub'));
    return p;
  };
  const unswap = (): void => {
    rmSync(join(root, 'sub'));
    renameSync(join(root, 'sub.real'), join(root, 'sub'));
  };

  it('a read never opens through a folder swapped after the check', () => {
    const p = checkThenSwap('sub/f.txt');
    try {
      assert.throws(() => openRegularFile(p.real, p.rel, root), (e: Error & { code?: string; retryable?: boolean }) => e.code === 'PATH_OUTSIDE_WORKSPACE' && e.retryable === true);
    } finally {
      unswap();
    }
    const ok = openRegularFile(p.real, p.rel, root);
    assert.equal(ok.st.size, 'inside'.length);
    assert.throws(() => openRegularFile(root, '', root), (e: Error & { code?: string }) => e.code === 'UNSUPPORTED_FILE_TYPE', 'the root itself is a folder');
  });

  it('a write never creates its temp file or renames through a swapped folder', async () => {
    const p = checkThenSwap('sub/f.txt');
    try {
      await assert.rejects(writeFileAtomic(p.real, Buffer.from('overwritten'), { base: root }), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_WORKSPACE');
    } finally {
      unswap();
    }
    assert.equal(readFileSync(join(outside, 'f.txt'), 'utf8'), 'SECRET');
    assert.deepEqual(readdirSync(outside), ['f.txt']);
  });

  it('listing and lstat go through the folder descriptor; create makes missing folders without following links', () => {
    const d = openDirBeneath(root, join(root, 'sub'));
    try {
      assert.deepEqual(readdirSync(d.entry('.')), ['f.txt']);
    } finally {
      d.close();
    }
    assert.equal(lstatBeneath(root, join(root, 'sub', 'missing')), null);
    const made: string[] = [];
    openDirBeneath(root, join(root, 'new', 'deeper'), { create: true, made }).close();
    assert.deepEqual(made, [join(root, 'new'), join(root, 'new', 'deeper')]);
    symlinkSync(outside, join(root, 'new', 'link'));
    assert.throws(() => openDirBeneath(root, join(root, 'new', 'link', 'x'), { create: true }), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_WORKSPACE');
    assert.deepEqual(readdirSync(outside), ['f.txt']);
  });
});
