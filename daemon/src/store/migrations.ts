import { CONVERSATION_READS_MIGRATION } from './conversation-reads-migration.js';
import { OPERATIONS_MIGRATION } from './operations-migration.js';
import { ROLES_OAUTH_MIGRATION } from './roles-oauth-migration.js';
import { EXTENSIONS_MIGRATION } from './extensions-migration.js';
import { DESKTOP_MIGRATION } from './desktop-migration.js';
import { TASKS_MIGRATION } from './tasks-migration.js';
import { WORK_MIGRATION } from './work-migration.js';
import { OAUTH_REFRESH_HASH_MIGRATION } from './oauth-refresh-hash-migration.js';

/**
 * Numbered schema migrations of `state/holdfast.db` (DESIGN §2). Migration N brings the schema
 * from `PRAGMA user_version = N-1` to N inside one transaction. Never edit a released migration:
 * add a new one.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'sessions and lifecycle events',
    sql: `
      CREATE TABLE sessions (
        id                  TEXT PRIMARY KEY,
        principal           TEXT NOT NULL,
        workspace           TEXT NOT NULL,
        workspace_root      TEXT NOT NULL,
        affinity            TEXT NOT NULL,
        session_key         TEXT,
        state               TEXT NOT NULL,
        created_at          INTEGER NOT NULL,
        updated_at          INTEGER NOT NULL,
        guardian_pid        INTEGER,
        guardian_start_time TEXT,
        guardian_socket     TEXT,
        guardian_proto      INTEGER,
        guardian_build      TEXT,
        shell_pid           INTEGER,
        last_activity_at    INTEGER NOT NULL,
        ever_executed       INTEGER NOT NULL DEFAULT 0,
        pty_end             INTEGER NOT NULL DEFAULT 0,
        exit_code           INTEGER,
        exit_signal         TEXT,
        ended_at            INTEGER,
        end_reason          TEXT
      );
      -- Attach-or-create backstop (DESIGN §4.2): one live session per key.
      CREATE UNIQUE INDEX sessions_live_key ON sessions(session_key)
        WHERE session_key IS NOT NULL AND state IN ('starting', 'running');
      CREATE INDEX sessions_state ON sessions(state);

      CREATE TABLE events (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        at         INTEGER NOT NULL,
        session_id TEXT,
        workspace  TEXT,
        kind       TEXT NOT NULL,
        tool       TEXT,
        status     TEXT,
        data       TEXT
      );
      CREATE INDEX events_session ON events(session_id, seq);
      CREATE INDEX events_workspace ON events(workspace, seq);
    `,
  },
  {
    version: 2,
    name: 'workspace files: reads, edits, idempotency receipts, move requests, temp-file journal',
    sql: `
      -- What each session has read, per file (read-before-edit, unchanged references; issue 4).
      CREATE TABLE file_reads (
        session_id     TEXT NOT NULL,
        path           TEXT NOT NULL,
        sha256         TEXT NOT NULL,
        read_at        INTEGER NOT NULL,
        windows        TEXT NOT NULL DEFAULT '[]',
        failed_matches INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, path)
      ) WITHOUT ROWID;

      -- One row per edit call (edit_id ed_…): its diff, kept for observe(view="diff").
      CREATE TABLE edits (
        id         TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        purpose    TEXT,
        created_at INTEGER NOT NULL,
        files      INTEGER NOT NULL,
        diff       TEXT NOT NULL,
        diff_lines INTEGER NOT NULL
      );
      CREATE INDEX edits_session ON edits(session_id, created_at);

      -- One row per file an edit call touched: shas before/after and undo bytes.
      CREATE TABLE edit_files (
        edit_id     TEXT NOT NULL,
        seq         INTEGER NOT NULL,
        session_id  TEXT NOT NULL,
        operation   TEXT NOT NULL,
        path        TEXT NOT NULL,
        new_path    TEXT,
        before_sha  TEXT,
        after_sha   TEXT,
        before_blob BLOB,
        mode        INTEGER,
        created_at  INTEGER NOT NULL,
        undone_by   TEXT,
        PRIMARY KEY (edit_id, seq)
      );
      CREATE INDEX edit_files_target ON edit_files(session_id, path, created_at);

      -- Idempotency receipts of any tool (edit, move_out prepare; execute later).
      CREATE TABLE idempotency_receipts (
        tool        TEXT NOT NULL,
        session_id  TEXT NOT NULL,
        key         TEXT NOT NULL,
        args_sha256 TEXT NOT NULL,
        receipt     TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (tool, session_id, key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_created ON idempotency_receipts(created_at);

      -- move_out requests: a frozen manifest waiting for confirmation, then its receipt.
      CREATE TABLE move_requests (
        id                TEXT PRIMARY KEY,
        confirmation_uuid TEXT NOT NULL UNIQUE,
        session_id        TEXT NOT NULL,
        purpose           TEXT NOT NULL,
        idempotency_key   TEXT NOT NULL,
        manifest          TEXT NOT NULL,
        manifest_sha256   TEXT NOT NULL,
        created_at        INTEGER NOT NULL,
        expires_at        INTEGER NOT NULL,
        state             TEXT NOT NULL,
        submitted_at      INTEGER,
        receipt           TEXT
      );
      CREATE INDEX move_requests_session ON move_requests(session_id, created_at);

      -- Temp files of atomic writes in progress: a writer killed mid-write leaves a row, and the
      -- daemon removes the file at its next start.
      CREATE TABLE temp_files (
        path       TEXT PRIMARY KEY,
        pid        INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  TASKS_MIGRATION,
  ROLES_OAUTH_MIGRATION,
  {
    version: 5,
    name: 'session sandbox (issue 17)',
    sql: `
      -- The confinement a session runs under (JSON: mode, network, writable, hidden); NULL = none.
      ALTER TABLE sessions ADD COLUMN sandbox TEXT;
    `,
  },
  EXTENSIONS_MIGRATION,
  WORK_MIGRATION,
  DESKTOP_MIGRATION,
  CONVERSATION_READS_MIGRATION,
  OPERATIONS_MIGRATION,
  {
    version: 11,
    name: 'sessions: last tool use (issue 18)',
    sql: `
      -- When a tool call last used the session (epoch ms; NULL = never since it was opened). Any
      -- tool use counts as activity for the TTL reaper, and a used session is never reclaimed by
      -- another principal's open.
      ALTER TABLE sessions ADD COLUMN last_tool_at INTEGER;
    `,
  },
  {
    version: 12,
    name: 'tasks: output not saved (a full disk)',
    sql: `
      -- Bytes of a command's or task's output the guardian could not write to its log because the
      -- disk was full (NULL = none): results and attach tell the agent its output is incomplete.
      ALTER TABLE tasks ADD COLUMN output_not_saved INTEGER;
    `,
  },
  OAUTH_REFRESH_HASH_MIGRATION,
];
