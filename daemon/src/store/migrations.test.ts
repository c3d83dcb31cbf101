import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { migrate, openDatabase } from './db.js';
import { MIGRATIONS } from './migrations.js';

describe('schema migrations', () => {
  it('are numbered 1, 2, 3, … in the order they run (a repeated or lower number would run again or never)', () => {
    assert.deepEqual(
      MIGRATIONS.map((m) => m.version),
      MIGRATIONS.map((_m, i) => i + 1),
    );
  });

  it('bring a new database to the last version, and a reopened one stays there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-migrate-'));
    try {
      const path = join(dir, 'holdfast.db');
      const db = openDatabase(path);
      assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
      db.close();
      const again = openDatabase(path);
      assert.equal(migrate(again), MIGRATIONS.length);
      // Issue 8: reads are kept per conversation.
      const cols = (again.prepare('PRAGMA table_info(file_reads)').all() as { name: string }[]).map((c) => c.name);
      assert.ok(cols.includes('reader'), cols.join(','));
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
