import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('never leaves its temporary file, and a planted symlink at the name is left alone', () => {
    const home = join(dir, 'planted');
    mkdirSync(home, { mode: 0o700 });
    const target = join(dir, 'victim');
    writeFileSync(target, 'keep');
    symlinkSync(target, join(home, 'token'));
    assert.equal(ensureGeneratedTokenFile(join(home, 'token')), false);
    assert.equal(readFileSync(target, 'utf8'), 'keep');
    const fresh = join(dir, 'fresh', 'token');
    assert.equal(ensureGeneratedTokenFile(fresh), true);
    assert.deepEqual(readdirSync(join(dir, 'fresh')), ['token']);
    assert.equal(statSync(fresh).nlink, 1);
  });

  it('processes generating the same token file at once all read one whole token', async () => {
    const self = new URL('./token-file.js', import.meta.url).pathname;
    const script = `import { ensureGeneratedTokenFile, readTokenFile } from ${JSON.stringify(self)};
const p = process.argv[1];
ensureGeneratedTokenFile(p);
process.stdout.write(readTokenFile(p, { allowWeak: false }));`;
    for (let round = 0; round < 5; round++) {
      const p = join(dir, `race-${round}`, 'token');
      const runs = Array.from({ length: 6 }, () =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, p], { stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          let err = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.stderr.on('data', (d: Buffer) => (err += d.toString()));
          child.on('close', (code) => resolve({ code, out, err }));
        }),
      );
      const results = await Promise.all(runs);
      for (const r of results) assert.equal(r.code, 0, r.err);
      assert.equal(new Set(results.map((r) => r.out)).size, 1, 'every process read the same token');
      assert.equal(results[0]!.out, readFileSync(p, 'utf8').trim());
      assert.ok(Buffer.byteLength(results[0]!.out) >= 32);
    }
  });
});
