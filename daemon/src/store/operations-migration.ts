/**
 * Operations and environment snapshots (issue 12). An operation (`op_…`) is one `operation_batch`:
 * its row and every step row are written in one transaction before the batch is acknowledged;
 * every change of the operation or of a step bumps the operation's `state_sequence` and stamps it
 * on what changed. `call_context` is the caller's context the steps run with (also after a daemon
 * restart). When results expire (`retention.operation_days`) the steps go and the row stays as a
 * tombstone (`results_expired_at`) so the id answers `OPERATION_RESULT_EXPIRED`. Environment
 * snapshots (`env_…`) are the readings `environment` saved, as JSON.
 */
export const OPERATIONS_MIGRATION = {
  version: 10,
  name: 'operations and environment snapshots (issue 12)',
  sql: `
    CREATE TABLE operations (
      id                 TEXT PRIMARY KEY,
      session_id         TEXT NOT NULL,
      workspace          TEXT NOT NULL,
      principal          TEXT NOT NULL,
      run_id             TEXT,
      -- sha256 of the canonical steps: a repeat with the same ids must send the same steps
      steps_sha256       TEXT NOT NULL,
      -- running | waiting_confirmation | succeeded | completed_with_issues | cancelled | interrupted
      state              TEXT NOT NULL,
      state_sequence     INTEGER NOT NULL,
      -- seq of the event recording the terminal state (set once, with it)
      terminal_event_id  INTEGER,
      -- JSON CallContext the steps run with (no tokens)
      call_context       TEXT,
      created_at         INTEGER NOT NULL,
      updated_at         INTEGER NOT NULL,
      ended_at           INTEGER,
      results_expired_at INTEGER
    );
    CREATE INDEX operations_session ON operations(session_id, created_at);
    CREATE INDEX operations_state ON operations(state);

    CREATE TABLE operation_steps (
      operation_id      TEXT NOT NULL REFERENCES operations(id) ON DELETE CASCADE,
      step_id           TEXT NOT NULL,
      position          INTEGER NOT NULL,
      tool              TEXT NOT NULL,
      -- JSON arguments as given (the batch's remote_session_id filled in)
      arguments         TEXT NOT NULL,
      -- JSON array of step ids
      depends_on        TEXT NOT NULL,
      -- pending | running | waiting_confirmation | succeeded | failed | skipped | cancelled | interrupted
      state             TEXT NOT NULL,
      state_sequence    INTEGER NOT NULL,
      -- execute steps: the idempotency key the step runs with (finds its task after a restart)
      idempotency_key   TEXT,
      execution_task_id TEXT,
      started_at        INTEGER,
      ended_at          INTEGER,
      -- JSON tool result (content, structuredContent, isError)
      result            TEXT,
      error             TEXT,
      PRIMARY KEY (operation_id, step_id)
    );

    CREATE TABLE environment_snapshots (
      id         TEXT PRIMARY KEY,
      session_id TEXT NOT NULL,
      workspace  TEXT NOT NULL,
      principal  TEXT NOT NULL,
      label      TEXT,
      created_at INTEGER NOT NULL,
      -- JSON reading (machine facts, PATH, toolchains, variable names)
      data       TEXT NOT NULL
    );
    CREATE INDEX environment_snapshots_session ON environment_snapshots(session_id, created_at);
  `,
};
