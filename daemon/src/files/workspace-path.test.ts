import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveWorkspacePath } from './workspace-path.js';

describe('workspace path resolution (issue 4; field failure #18)', () => {
  const base = realpathSync(mkdtempSync('/tmp/hf-path-'));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'src', 'a.ts'), 'x');
  writeFileSync(join(outside, 'secret'), 's');
  symlinkSync(outside, join(root, 'link-out'));
  symlinkSync(join(root, 'src'), join(root, 'link-in'));
  symlinkSync(join(outside, 'missing-dir', 'x'), join(root, 'dangling-out'));
  symlinkSync('../outside/secret', join(root, 'src-secret'));
  after(() => rmSync(base, { recursive: true, force: true }));

  const refused = (p: string, followFinal = true): void => {
    assert.throws(() => resolveWorkspacePath(root, p, { followFinal }), (err: Error & { code?: string }) => err.code === 'PATH_OUTSIDE_WORKSPACE', p);
  };

  it('normal relative paths resolve; "." and "" are the root', () => {
    const r = resolveWorkspacePath(root, './src//a.ts');
    assert.equal(r.rel, 'src/a.ts');
    assert.equal(r.real, join(root, 'src', 'a.ts'));
    assert.equal(resolveWorkspacePath(root, '.').rel, '');
    assert.equal(resolveWorkspacePath(root, 'src/new/deeper.ts').lstat, null);
  });

  it('absolute paths and .. are refused', () => {
    refused('/etc/passwd');
    refused('../outside/secret');
    refused('src/../../outside/secret');
    refused('src/..');
  });

  it('an absolute path spelled with the workspace root is taken as the relative path it names; others stay refused', () => {
    assert.equal(resolveWorkspacePath(root, join(root, 'src', 'a.ts')).rel, 'src/a.ts');
    assert.equal(resolveWorkspacePath(root, `${root}/src/`).rel, 'src');
    assert.equal(resolveWorkspacePath(root, root).rel, '');
    assert.equal(resolveWorkspacePath(root, `${root}/`).rel, '');
    refused(`${root}-other/x`); // a sibling whose name starts with the root's
    refused(`${root}/../outside/secret`);
    refused(`${root}/src/../../outside/secret`);
    refused(`${root}/link-out/secret`); // still through the symlink checks
    refused(join(outside, 'secret'));
  });

  it('symlinks that lead out are refused, including a new file under a symlinked folder and a dangling link', () => {
    refused('link-out/secret');
    refused('link-out/pwned'); // does not exist yet: the deepest existing ancestor decides
    refused('link-out/new/dir/pwned');
    refused('dangling-out');
    refused('src-secret');
  });

  it('symlinks that stay inside resolve to their target; a final link can be taken as itself', () => {
    assert.equal(resolveWorkspacePath(root, 'link-in/a.ts').real, join(root, 'src', 'a.ts'));
    assert.equal(resolveWorkspacePath(root, 'link-in/a.ts').realRel, 'src/a.ts');
    const asLink = resolveWorkspacePath(root, 'link-out', { followFinal: false });
    assert.equal(asLink.real, join(root, 'link-out'));
    assert.ok(asLink.lstat?.isSymbolicLink());
    refused('link-out/secret', false);
  });
});
