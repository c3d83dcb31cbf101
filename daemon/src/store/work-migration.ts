/**
 * Work tracking (issue 11): plans with their tasks and evidence, progress reports, artifacts and
 * each session's current activity turn. Everything is keyed by the remote session; plans cascade
 * to their tasks and evidence. Artifact bytes live in `state/artifacts/<session>/<artifact_id>`
 * (the row names the file); the row is written only after the file is durable.
 */
export const WORK_MIGRATION = {
  version: 7,
  name: 'work tracking: plans, progress, artifacts, activity',
  sql: `
    CREATE TABLE plans (
      id           TEXT PRIMARY KEY,
      session_id   TEXT NOT NULL,
      workspace    TEXT NOT NULL,
      title        TEXT NOT NULL,
      goal         TEXT NOT NULL,
      -- open | delivered
      state        TEXT NOT NULL,
      revision     INTEGER NOT NULL,
      created_at   INTEGER NOT NULL,
      updated_at   INTEGER NOT NULL,
      delivered_at INTEGER
    );
    CREATE INDEX plans_session ON plans(session_id, created_at);
    CREATE INDEX plans_updated ON plans(updated_at);

    CREATE TABLE plan_tasks (
      id           TEXT PRIMARY KEY,
      plan_id      TEXT NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
      position     INTEGER NOT NULL,
      local_id     TEXT,
      title        TEXT NOT NULL,
      acceptance   TEXT,
      -- JSON array of plan task ids
      depends_on   TEXT NOT NULL DEFAULT '[]',
      -- pending | in_progress | blocked | completed | dropped
      state        TEXT NOT NULL,
      block_reason TEXT,
      created_at   INTEGER NOT NULL,
      updated_at   INTEGER NOT NULL,
      started_at   INTEGER,
      completed_at INTEGER
    );
    CREATE INDEX plan_tasks_plan ON plan_tasks(plan_id, position);

    CREATE TABLE plan_evidence (
      plan_task_id TEXT NOT NULL REFERENCES plan_tasks(id) ON DELETE CASCADE,
      seq          INTEGER NOT NULL,
      plan_id      TEXT NOT NULL,
      -- execute | edit | artifact | note
      kind         TEXT NOT NULL,
      -- execution_task_id, edit_id or artifact_id (null for a note)
      ref_id       TEXT,
      text         TEXT,
      exit_code    INTEGER,
      -- JSON facts checked when recorded (task state, command, files …)
      detail       TEXT,
      recorded_at  INTEGER NOT NULL,
      PRIMARY KEY (plan_task_id, seq)
    );
    CREATE INDEX plan_evidence_ref ON plan_evidence(ref_id);

    CREATE TABLE progress_reports (
      id         INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL,
      status     TEXT NOT NULL,
      current    TEXT NOT NULL,
      -- JSON array of strings
      result     TEXT,
      at         INTEGER NOT NULL
    );
    CREATE INDEX progress_session ON progress_reports(session_id, id);

    CREATE TABLE artifacts (
      id              TEXT PRIMARY KEY,
      session_id      TEXT NOT NULL,
      workspace       TEXT NOT NULL,
      title           TEXT NOT NULL,
      kind            TEXT NOT NULL,
      -- workspace-relative path it was taken from; null for inline content
      source_path     TEXT,
      mime_type       TEXT NOT NULL,
      byte_length     INTEGER NOT NULL,
      sha256          TEXT NOT NULL,
      -- utf-8 | utf-16le | utf-16be | iso-8859-1 | binary
      source_encoding TEXT NOT NULL,
      source_bom      INTEGER NOT NULL,
      created_at      INTEGER NOT NULL
    );
    CREATE INDEX artifacts_session ON artifacts(session_id, created_at);
    CREATE INDEX artifacts_created ON artifacts(created_at);

    -- The current activity turn of each session (the merged snapshot the last call returned).
    CREATE TABLE session_activity (
      session_id TEXT PRIMARY KEY,
      turn_id    TEXT NOT NULL,
      state      TEXT NOT NULL,
      sequence   INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );

    CREATE INDEX events_at ON events(at);
  `,
} as const;
