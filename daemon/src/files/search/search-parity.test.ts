import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { findOnPath } from '../trash.js';
import { BuiltinEngine } from './builtin-engine.js';
import { RipgrepEngine } from './rg-engine.js';
import type { FilesSpec, SearchSpec } from './types.js';

const MAX_FILE = 50 * 1024 * 1024;
const COLLECT = 10_000;

/** A tree with the cases both engines must agree on. */
function fixture(root: string): void {
  const w = (rel: string, data: string | Buffer): void => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), data);
  };
  w('.gitignore', 'node_modules/\n*.log\n!keep.log\n/build\n');
  w('src/.gitignore', 'generated.ts\n');
  w('src/.ignore', 'scratch/\n');
  w('src/app.ts', 'import x from "y";\n// TODO: fix this\nexport const todo = 1;\nconst s = "a\\nb TODO";\n');
  w('src/generated.ts', '// TODO generated\n');
  w('src/scratch/tmp.ts', '// TODO scratch\n');
  w('src/lib/util.ts', 'export function util() {\n  return "todo";\n}\n// TODO util\n');
  w('src/lib/deep/anchored/.gitignore', '/only-here.ts\nsub/inner.ts\n');
  w('src/lib/deep/anchored/only-here.ts', '// TODO ignored by an anchored rule\n');
  w('src/lib/deep/anchored/sub/inner.ts', '// TODO ignored too\n');
  w('src/lib/deep/anchored/sub/kept.ts', '// TODO kept\n');
  w('a/b.txt', 'TODO in a/b\n');
  w('a.txt', 'TODO in a.txt\n');
  w('README.md', '# Title\nSome TODO text\nmore\nTODO again\n');
  w('docs/über.md', 'Ünïcode TODO line\n');
  w('crlf.txt', 'first TODO\r\nsecond\r\nthird TODO\r\n');
  w('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('TODO with bom\n')]));
  w('utf16.txt', iconv.encode('TODO in utf16\nline two\n', 'utf-16le', { addBOM: true }));
  w('binary.bin', Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.from('TODO hidden in binary\n')]));
  w('debug.log', 'TODO in a log\n');
  w('keep.log', 'TODO kept log\n');
  w('node_modules/pkg/index.js', '// TODO in node_modules\n');
  w('build/out.js', '// TODO built\n');
  w('.github/workflows/ci.yml', '# TODO hidden dir\n');
  w('.git/config', 'TODO in git internals\n');
  w('vendor/sub/.git', 'gitdir: ../../.git/modules/sub TODO\n');
  w('secret/key.txt', 'TODO secret\n');
  w('many/lines.txt', Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `TODO ${i}` : `line ${i}`)).join('\n') + '\n');
  symlinkSync(join(root, 'src', 'app.ts'), join(root, 'link-to-app.ts'));
}

describe('search engines give the same results (issue 4)', { skip: findOnPath('rg') ? false : 'ripgrep is not on PATH (.ci/run installs it)' }, () => {
  const root = realpathSync(mkdtempSync('/tmp/hf-search-'));
  fixture(root);
  const rg = new RipgrepEngine(findOnPath('rg') ?? 'rg');
  const builtin = new BuiltinEngine();
  after(async () => {
    await builtin.close();
    rmSync(root, { recursive: true, force: true });
  });

  const spec = (s: Partial<SearchSpec>): SearchSpec => ({
    root, scope: '', query: 'TODO', regex: false, caseSensitive: true, include: [], exclude: [], contextLines: 0, deny: ['^secret/'], want: 1000, ...s,
  });

  const cases: [string, Partial<SearchSpec>][] = [
    ['literal over the whole workspace', {}],
    ['case-insensitive', { query: 'todo', caseSensitive: false }],
    ['regex with anchors', { query: '^(//|#) TODO', regex: true }],
    ['context lines', { contextLines: 2 }],
    ['include *.ts', { include: ['*.ts'] }],
    ['include an anchored glob', { include: ['src/**'] }],
    ['exclude *.md and a folder', { exclude: ['*.md', 'many'] }],
    ['scope: a folder, root .gitignore still applies', { scope: 'src' }],
    ['scope: a folder without ignore files above but own', { scope: 'src/lib' }],
    ['no match', { query: 'NOPE-NOT-HERE' }],
  ];
  for (const [name, s] of cases) {
    it(name, async () => {
      const a = await rg.search(spec(s), MAX_FILE, COLLECT);
      const b = await builtin.search(spec(s), MAX_FILE, COLLECT);
      assert.ok(a, 'ripgrep handled it');
      assert.deepEqual(a.matches, b.matches);
      assert.equal(a.complete, b.complete);
    });
  }

  it('the expected files and only those are searched', async () => {
    const b = await builtin.search(spec({}), MAX_FILE, COLLECT);
    const paths = [...new Set(b.matches.map((m) => m.path))];
    assert.deepEqual(paths, [
      '.github/workflows/ci.yml', 'README.md', 'a/b.txt', 'a.txt', 'bom.txt', 'crlf.txt', 'docs/über.md', 'keep.log', 'many/lines.txt',
      'src/app.ts', 'src/lib/deep/anchored/sub/kept.ts', 'src/lib/util.ts', 'utf16.txt',
    ]);
    const crlf = b.matches.filter((m) => m.path === 'crlf.txt');
    assert.deepEqual(crlf.map((m) => m.text), ['first TODO', 'third TODO']);
  });

  it('anchored rules in a folder above the scope: ripgrep declines, the built-in engine answers', async () => {
    const s = spec({ scope: 'src/lib/deep/anchored/sub' });
    assert.equal(await rg.search(spec({ scope: 'src/lib/deep/anchored' }), MAX_FILE, COLLECT) !== null, true);
    assert.equal(await rg.search(s, MAX_FILE, COLLECT), null);
    const b = await builtin.search(s, MAX_FILE, COLLECT);
    assert.deepEqual(b.matches.map((m) => m.path), ['src/lib/deep/anchored/sub/kept.ts']);
  });

  it('over the collect limit both engines return the same first matches in path order', async () => {
    const a = await rg.search(spec({ want: 7 }), MAX_FILE, 5);
    const b = await builtin.search(spec({ want: 7 }), MAX_FILE, 5);
    assert.ok(a);
    assert.equal(a.complete, false);
    assert.equal(b.complete, false);
    assert.deepEqual(a.matches.slice(0, 7), b.matches.slice(0, 7));
  });

  it('file listings agree', async () => {
    const fs = (s: Partial<FilesSpec>): FilesSpec => ({ root, scope: '', include: [], exclude: [], deny: ['^secret/'], query: null, ...s });
    for (const s of [{}, { scope: 'src' }, { include: ['*.md'] }, { query: 'LIB' }, { exclude: ['src'] }]) {
      const a = await rg.files(fs(s), COLLECT);
      const b = await builtin.files(fs(s), COLLECT);
      assert.ok(a);
      assert.deepEqual(a.files, b.files, JSON.stringify(s));
    }
    const all = await builtin.files(fs({}), COLLECT);
    assert.ok(all.files.includes('binary.bin'), 'listing shows binary files');
    assert.ok(!all.files.some((f) => f.startsWith('.git/') || f.startsWith('secret/') || f.startsWith('node_modules/')));
  });
});
