import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/**
 * Opens the state database (DESIGN §2): SQLite in WAL mode, the daemon its only writer,
 * migrated to the newest schema. Created 0600 in a 0700 folder.
 * @throws when the file is not a database or a migration fails (the transaction rolls back).
 */
export function openDatabase(path: string): Db {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new Database(path);
  try {
    chmodSync(path, 0o600);
  } catch {
    // best effort (e.g. :memory:)
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/** Applies every migration above the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  // SHA-256 (hex) of a text, for migrations that hash secrets at rest (migration 13).
  db.function('holdfast_sha256', { deterministic: true }, (v: unknown) => createHash('sha256').update(String(v)).digest('hex'));
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return db.pragma('user_version', { simple: true }) as number;
}

/** Folds the WAL into the main file (before a restart handoff). */
export function checkpoint(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}
