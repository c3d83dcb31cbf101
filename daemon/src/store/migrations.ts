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
];
