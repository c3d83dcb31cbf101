import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeJsonAtomic } from './manifest.js';

describe('atomic JSON records (issue 18: no temp file through a planted symlink)', () => {
  const dir = mkdtempSync('/tmp/hf-manifest-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('never writes through a symlink planted at the temp name, and leaves no temp file', () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious');
    const target = join(dir, 'daemon.pid');
    // The name the old writer used: `<path>.<pid>.tmp`.
    symlinkSync(victim, `${target}.${process.pid}.tmp`);
    writeJsonAtomic(target, { pid: process.pid });
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.deepEqual(JSON.parse(readFileSync(target, 'utf8')), { pid: process.pid });
    assert.equal(lstatSync(target).isFile(), true);
    assert.equal(statSync(target).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir).sort(), ['daemon.pid', `daemon.pid.${process.pid}.tmp`, 'victim'].sort());
  });
});
