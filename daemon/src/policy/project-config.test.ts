import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { evaluateCommand } from './commands.js';
import { effectiveCommandRules } from './effective-rules.js';
import { filePolicyFor } from './files.js';
import { forgetProjectNarrowing, ProjectConfigCache } from './project-config.js';
import { parseConfigText } from '@holdfast/shared/config';

/** Review finding 5: the agent must not be able to lift its project's narrowing by rewriting the file. */
describe('project narrowing is sticky for the daemon’s life (review finding 5)', () => {
  const dirs: string[] = [];
  const config = parseConfigText('workspaces: []\n');
  const global = { ...config.security.commands, deny: [], confirm: [], default: 'allow' as const };
  let tick = 1_700_000_000;
  const write = (root: string, text: string): void => {
    writeFileSync(join(root, '.holdfast.yaml'), text);
    tick += 10;
    utimesSync(join(root, '.holdfast.yaml'), tick, tick); // a new mtime, as a later write would have
  };
  const workspace = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'hf-narrow-'));
    dirs.push(d);
    return d;
  };
  const decide = (cache: ProjectConfigCache, root: string, command: string) => evaluateCommand({ command }, effectiveCommandRules(global, cache.get(root))).decision;

  beforeEach(() => forgetProjectNarrowing());
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    forgetProjectNarrowing();
  });

  it('deny and confirm rules and the default stay after the file is loosened', () => {
    const root = workspace();
    const cache = new ProjectConfigCache();
    write(root, 'security:\n  commands:\n    deny: [curl]\n    confirm: [wget]\n    default: confirm\n');
    assert.equal(decide(cache, root, 'curl x'), 'deny');
    assert.equal(decide(cache, root, 'python3 x.py'), 'confirm');
    write(root, 'x: 1\n');
    assert.equal(decide(cache, root, 'curl x'), 'deny', 'still denied after printf x: 1 > .holdfast.yaml');
    assert.equal(decide(cache, root, 'wget x'), 'confirm');
    assert.equal(decide(cache, root, 'python3 x.py'), 'confirm', 'the stricter default stays');
    write(root, 'security:\n  commands:\n    default: allow\n    deny: []\n');
    assert.equal(decide(cache, root, 'curl x'), 'deny');
    assert.equal(decide(cache, root, 'python3 x.py'), 'confirm');
  });

  it('stays after the file is removed, and holds for every cache of the process', () => {
    const root = workspace();
    const a = new ProjectConfigCache();
    write(root, 'security:\n  commands:\n    deny: [curl]\n');
    assert.equal(decide(a, root, 'curl x'), 'deny');
    rmSync(join(root, '.holdfast.yaml'));
    assert.equal(decide(a, root, 'curl x'), 'deny');
    const b = new ProjectConfigCache(); // e.g. the file tools' cache, created later
    assert.equal(decide(b, root, 'curl x'), 'deny');
  });

  it('tightening takes effect at once and accumulates', () => {
    const root = workspace();
    const cache = new ProjectConfigCache();
    write(root, 'security:\n  commands:\n    deny: [curl]\n');
    assert.equal(decide(cache, root, 'wget x'), 'allow');
    write(root, 'security:\n  commands:\n    deny: [wget]\n');
    assert.equal(decide(cache, root, 'wget x'), 'deny');
    assert.equal(decide(cache, root, 'curl x'), 'deny');
    write(root, 'security:\n  commands:\n    default: deny\n');
    assert.equal(decide(cache, root, 'python3 x.py'), 'deny');
  });

  it('a malformed section still refuses everything until fixed; its valid rules are remembered', () => {
    const root = workspace();
    const cache = new ProjectConfigCache();
    write(root, 'security:\n  commands:\n    deny: [curl]\n');
    assert.equal(decide(cache, root, 'curl x'), 'deny');
    write(root, 'security:\n  commands:\n    allow: [sudo]\n');
    assert.throws(() => decide(cache, root, 'ls'), /security\.commands/);
    write(root, 'security:\n  commands:\n    deny: ["a && b"]\n');
    assert.throws(() => decide(cache, root, 'ls'), /security\.commands\.deny/);
    write(root, 'tasks: {}\n');
    assert.equal(decide(cache, root, 'ls'), 'allow', 'an invalid rule is not remembered');
    assert.equal(decide(cache, root, 'curl x'), 'deny');
  });

  it('file deny rules and patch limits are sticky too', () => {
    const root = workspace();
    const cache = new ProjectConfigCache();
    write(root, 'security:\n  files:\n    deny: ["^secrets/"]\n    max_patch_files: 3\n');
    assert.deepEqual(filePolicyFor(config, cache, root).deny.map((r) => r.source), ['^\\.git/', '^secrets/']);
    write(root, 'security:\n  files:\n    max_patch_files: 50\n');
    const p = filePolicyFor(config, cache, root);
    assert.deepEqual(p.deny.map((r) => r.source), ['^\\.git/', '^secrets/']);
    assert.equal(p.maxPatchFiles, 3);
  });

  it('a daemon restart (forgetting) reads the file afresh', () => {
    const root = workspace();
    const cache = new ProjectConfigCache();
    write(root, 'security:\n  commands:\n    deny: [curl]\n');
    assert.equal(decide(cache, root, 'curl x'), 'deny');
    write(root, 'x: 1\n');
    forgetProjectNarrowing();
    assert.equal(decide(new ProjectConfigCache(), root, 'curl x'), 'allow');
  });

  it('returns the same object while nothing changes (compiled rules are reused)', () => {
    const root = workspace();
    const cache = new ProjectConfigCache();
    write(root, 'security:\n  commands:\n    deny: [curl]\n');
    cache.get(root);
    write(root, 'x: 1\n');
    assert.equal(cache.get(root), cache.get(root));
  });
});
