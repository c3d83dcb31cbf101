/**
 * Migration 9 (issue 8): what was read is kept per conversation of a session
 * (`file_reads.reader`: the caller's conversation id, `''` when it names none), and a task
 * remembers how far the last `execute` result showed its output (`pty_shown`, `stdout_shown`,
 * `stderr_shown`: `attach`/`status` continue from there). Existing reads become the `''` reader's.
 */
export const CONVERSATION_READS_MIGRATION = {
  version: 9,
  name: 'reads per conversation; output offsets shown per task',
  sql: `
    CREATE TABLE file_reads_by_reader (
      session_id     TEXT NOT NULL,
      reader         TEXT NOT NULL DEFAULT '',
      path           TEXT NOT NULL,
      sha256         TEXT NOT NULL,
      read_at        INTEGER NOT NULL,
      windows        TEXT NOT NULL DEFAULT '[]',
      failed_matches INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (session_id, reader, path)
    ) WITHOUT ROWID;
    INSERT INTO file_reads_by_reader (session_id, reader, path, sha256, read_at, windows, failed_matches)
      SELECT session_id, '', path, sha256, read_at, windows, failed_matches FROM file_reads;
    DROP TABLE file_reads;
    ALTER TABLE file_reads_by_reader RENAME TO file_reads;

    ALTER TABLE tasks ADD COLUMN pty_shown INTEGER;
    ALTER TABLE tasks ADD COLUMN stdout_shown INTEGER;
    ALTER TABLE tasks ADD COLUMN stderr_shown INTEGER;
  `,
} as const;
