import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from './db.js';
import { MIGRATIONS } from './migrations.js';

describe('state database migrations (DESIGN §2)', () => {
  it('are numbered 1, 2, 3, … in list order, so every one runs exactly once', () => {
    assert.deepEqual(
      MIGRATIONS.map((m) => m.version),
      MIGRATIONS.map((_, i) => i + 1),
    );
  });

  it('a database migrated once opens again without re-running anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-mig-'));
    try {
      const path = join(dir, 'state.db');
      openDatabase(path).close();
      const db = openDatabase(path);
      assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
