/**
 * Migration 3 (issue 5): execution tasks. One row per `execute` that got an `execution_task_id`
 * — foreground commands in the PTY, background shell tasks, argv tasks, project tasks, and calls
 * waiting for confirmation — so a task's command, exit code and output offsets stay readable after
 * its process is gone, after the guardian is gone and after daemon restarts, until retention
 * (`retention.task_days`) removes them. Environment values are never stored (names only); the
 * bytes themselves stay in the session's PTY and task logs on disk.
 */
export const TASKS_MIGRATION = {
  version: 3,
  name: 'execution tasks',
  sql: `
    CREATE TABLE tasks (
      id               TEXT PRIMARY KEY,
      session_id       TEXT NOT NULL,
      workspace        TEXT NOT NULL,
      principal        TEXT NOT NULL,
      -- foreground (the session's PTY) | background (bash -c, own process group) | argv (no shell)
      kind             TEXT NOT NULL,
      -- command | argv | task (a project task; task_name says which)
      origin           TEXT NOT NULL,
      task_name        TEXT,
      command          TEXT,
      argv             TEXT,
      cwd              TEXT,
      env_keys         TEXT,
      purpose          TEXT,
      idempotency_key  TEXT,
      -- sha256 over what a confirmation is bound to: mode, command/argv/task, cwd, env, purpose, background
      fingerprint      TEXT NOT NULL,
      policy_decision  TEXT NOT NULL,
      policy_rule      TEXT,
      diagnostics      TEXT,
      -- waiting_confirmation | running | exited | interrupted | failed
      state            TEXT NOT NULL,
      exit_code        INTEGER,
      signal           TEXT,
      created_at       INTEGER NOT NULL,
      started_at       INTEGER,
      ended_at         INTEGER,
      expires_at       INTEGER,
      pty_start        INTEGER,
      pty_end          INTEGER,
      stdout_end       INTEGER,
      stderr_end       INTEGER,
      error            TEXT
    );
    CREATE INDEX tasks_session ON tasks(session_id, created_at);
    CREATE INDEX tasks_state ON tasks(state);
    CREATE INDEX tasks_created ON tasks(created_at);
  `,
} as const;
