/**
 * Desktop migration (issue 15): the person's device book, the desktop sessions the daemon opened
 * (their rows are the device lock: one open row per lock key), the person's pauses (kept apart
 * so a reconnect never lifts one), and the index of views (which session a `view_…` belongs to).
 * Passwords are never stored here: the book says where the credential is (`keyring`,
 * `env:VAR`, `none`).
 */
export const DESKTOP_MIGRATION = {
  version: 8,
  name: 'desktop devices, sessions, pauses and views',
  sql: `
    CREATE TABLE desktop_devices (
      alias          TEXT PRIMARY KEY,
      host           TEXT NOT NULL,
      port           INTEGER NOT NULL,
      -- keyring | env:VAR | none
      credential     TEXT NOT NULL,
      -- view | control
      authorization  TEXT NOT NULL,
      auto_connect   INTEGER NOT NULL DEFAULT 0,
      created_at     INTEGER NOT NULL,
      updated_at     INTEGER NOT NULL
    );

    CREATE TABLE desktop_sessions (
      id          TEXT PRIMARY KEY,
      session_id  TEXT NOT NULL,
      principal   TEXT NOT NULL,
      -- a device alias, or virtual
      device      TEXT NOT NULL,
      -- device:<alias> | virtual:<remote_session_id>
      lock_key    TEXT NOT NULL,
      created_at  INTEGER NOT NULL,
      ended_at    INTEGER,
      end_reason  TEXT
    );
    -- The device lock (issue 15): one agent connection per device across all sessions.
    CREATE UNIQUE INDEX desktop_sessions_lock ON desktop_sessions(lock_key) WHERE ended_at IS NULL;
    CREATE INDEX desktop_sessions_session ON desktop_sessions(session_id);

    CREATE TABLE desktop_pauses (
      lock_key   TEXT PRIMARY KEY,
      paused_at  INTEGER NOT NULL
    ) WITHOUT ROWID;

    CREATE TABLE desktop_views (
      id          TEXT PRIMARY KEY,
      session_id  TEXT NOT NULL,
      principal   TEXT NOT NULL,
      device      TEXT,
      created_at  INTEGER NOT NULL
    );
    CREATE INDEX desktop_views_created ON desktop_views(created_at);
  `,
};
