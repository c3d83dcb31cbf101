import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseProjectConfig } from '../policy/project-config.js';
import { discoverProject, findTask } from './index.js';

describe('project task discovery (issue 5)', () => {
  const root = mkdtempSync(join(tmpdir(), 'hf-proj-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('finds package.json scripts, Makefile targets, Cargo, Go, pyproject and .holdfast.yaml tasks', () => {
    writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { build: 'tsc -b', test: 'node --test dist/', 'lint:fix': 'eslint . --fix' } }));
    writeFileSync(join(root, 'Makefile'), 'CC := gcc\n.PHONY: all clean\nall: app ## build everything\napp: main.o\n\t$(CC) -o app main.o\n%.o: %.c\n\t$(CC) -c $<\nclean:\n\trm -f app *.o\ntest check: app\n');
    writeFileSync(join(root, 'Cargo.toml'), '[package]\nname = "x"\n');
    writeFileSync(join(root, 'go.mod'), 'module example.com/x\n');
    writeFileSync(join(root, 'pyproject.toml'), '[tool.pytest.ini_options]\naddopts = "-q"\n');
    const cfg = parseProjectConfig('tasks:\n  deploy: ./deploy.sh staging\n  build:\n    command: make all\n    diagnostics: gcc\n  bad:\n    command: 3\n', 'x');
    const info = discoverProject(root, cfg);
    const q = info.tasks.map((t) => t.qualified);
    assert.deepEqual(q, [
      'holdfast:deploy', 'holdfast:build',
      'npm:build', 'npm:test', 'npm:lint:fix',
      'make:all', 'make:app', 'make:clean', 'make:test', 'make:check',
      'cargo:build', 'cargo:test', 'cargo:check', 'cargo:clippy', 'cargo:run',
      'go:build', 'go:test', 'go:vet',
      'python:test',
    ]);
    assert.equal(info.problems.length, 1, 'the bad .holdfast.yaml entry is reported');
    assert.equal(findTask(info, 'build')!.command, 'make all', '.holdfast.yaml wins for plain names');
    assert.equal(findTask(info, 'npm:build')!.command, 'npm run build');
    assert.deepEqual(findTask(info, 'npm:build')!.diagnostics, ['tsc']);
    assert.equal(findTask(info, 'test')!.qualified, 'npm:test');
    assert.equal(findTask(info, 'npm:lint:fix')!.command, 'npm run lint:fix');
    assert.equal(findTask(info, 'all')!.description, 'build everything');
    assert.equal(findTask(info, 'go:test')!.command, 'go test ./...');
    assert.equal(findTask(info, 'nope'), null);
  });

  it('uses the package manager named by the lock file and survives a broken package.json', () => {
    const r = join(root, 'sub');
    mkdirSync(r);
    writeFileSync(join(r, 'package.json'), JSON.stringify({ scripts: { dev: 'vite' } }));
    writeFileSync(join(r, 'pnpm-lock.yaml'), '');
    assert.equal(findTask(discoverProject(r, {}), 'dev')!.command, 'pnpm run dev');
    writeFileSync(join(r, 'package.json'), '{ nope');
    const info = discoverProject(r, {});
    assert.equal(info.tasks.length, 0);
    assert.match(info.problems[0]!, /package\.json/);
  });
});
