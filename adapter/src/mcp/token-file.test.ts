import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ensureGeneratedTokenFile, readTokenFile } from './token-file.js';

describe('token files (DESIGN §6.2)', () => {
  const dir = mkdtempSync('/tmp/hf-token-');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string, mode = 0o600): string => {
    const p = join(dir, name);
    writeFileSync(p, text, { mode });
    chmodSync(p, mode);
    return p;
  };

  it('reads a 0600 file of at least 32 bytes, without surrounding whitespace', () => {
    assert.equal(readTokenFile(file('ok', `  ${'t'.repeat(32)}\n`), { allowWeak: false }), 't'.repeat(32));
    assert.equal(readTokenFile(file('ro', 'r'.repeat(32), 0o400), { allowWeak: false }), 'r'.repeat(32));
  });

  it('refuses weak, empty, group/world-accessible, symlinked and non-regular files', () => {
    assert.throws(() => readTokenFile(file('weak', 'x'.repeat(31)), { allowWeak: false }), /31 bytes; at least 32/);
    assert.equal(readTokenFile(file('weak2', 'x'.repeat(31)), { allowWeak: true }), 'x'.repeat(31));
    assert.throws(() => readTokenFile(file('empty', '\n'), { allowWeak: true }), /is empty/);
    assert.throws(() => readTokenFile(file('g', 'x'.repeat(40), 0o640), { allowWeak: false }), /mode 0640/);
    const target = file('target', 'x'.repeat(40));
    symlinkSync(target, join(dir, 'sym'));
    assert.throws(() => readTokenFile(join(dir, 'sym'), { allowWeak: false }), /symlink/);
    mkdirSync(join(dir, 'd'));
    assert.throws(() => readTokenFile(join(dir, 'd'), { allowWeak: false }), /not a regular file/);
  });

  it('generates a 0600 token once and never overwrites an existing file', () => {
    const p = join(dir, 'home', 'token');
    assert.equal(ensureGeneratedTokenFile(p), true);
    const t = readFileSync(p, 'utf8').trim();
    assert.ok(Buffer.byteLength(t) >= 32);
    assert.equal(statSync(p).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'home')).mode & 0o777, 0o700);
    assert.equal(ensureGeneratedTokenFile(p), false);
    assert.equal(readFileSync(p, 'utf8').trim(), t);
  });
});
