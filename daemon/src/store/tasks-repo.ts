import type { Db } from './db.js';

/** Kinds of execution task (issue 5). */
export type TaskKind = 'foreground' | 'background' | 'argv';
/** How the call named what to run. */
export type TaskOrigin = 'command' | 'argv' | 'task';
/** Lifecycle of a task row. `interrupted`: its session ended while it ran; `failed`: it never started. */
export type TaskState = 'waiting_confirmation' | 'running' | 'exited' | 'interrupted' | 'failed';

/** One row of `tasks` (store/tasks-migration.ts). Times are epoch ms; offsets are absolute bytes. */
export interface TaskRow {
  id: string;
  session_id: string;
  workspace: string;
  principal: string;
  kind: TaskKind;
  origin: TaskOrigin;
  task_name: string | null;
  command: string | null;
  /** JSON array. */
  argv: string | null;
  cwd: string | null;
  /** JSON array of environment variable names given with the call. */
  env_keys: string | null;
  purpose: string | null;
  /** The call's idempotency key (or the one generated for its confirmation). */
  idempotency_key: string | null;
  fingerprint: string;
  policy_decision: string;
  policy_rule: string | null;
  /** JSON: formats array or "auto"; null when no diagnostics are parsed. */
  diagnostics: string | null;
  state: TaskState;
  exit_code: number | null;
  signal: string | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  expires_at: number | null;
  /** Foreground: output range in the session's PTY log. */
  pty_start: number | null;
  pty_end: number | null;
  /** Piped tasks: bytes written to each stream. */
  stdout_end: number | null;
  stderr_end: number | null;
  error: string | null;
  /**
   * How far the last `execute` result showed the output (issue 8): `attach`/`status` continue from
   * here. PTY offset for foreground commands; per stream for piped tasks. Null: nothing shown yet.
   */
  pty_shown: number | null;
  stdout_shown: number | null;
  stderr_shown: number | null;
  /** Bytes of its output the guardian could not write to the log (a full disk); null when none. */
  output_not_saved: number | null;
}

export type NewTask = Omit<TaskRow, 'exit_code' | 'signal' | 'started_at' | 'ended_at' | 'pty_start' | 'pty_end' | 'stdout_end' | 'stderr_end' | 'error' | 'pty_shown' | 'stdout_shown' | 'stderr_shown' | 'output_not_saved'> &
  Partial<Pick<TaskRow, 'started_at' | 'pty_start' | 'error'>>;

const COLUMNS: readonly (keyof TaskRow)[] = [
  'id', 'session_id', 'workspace', 'principal', 'kind', 'origin', 'task_name', 'command', 'argv', 'cwd', 'env_keys', 'purpose', 'idempotency_key', 'fingerprint',
  'policy_decision', 'policy_rule', 'diagnostics', 'state', 'exit_code', 'signal', 'created_at', 'started_at', 'ended_at', 'expires_at',
  'pty_start', 'pty_end', 'stdout_end', 'stderr_end', 'error', 'pty_shown', 'stdout_shown', 'stderr_shown', 'output_not_saved',
];

/** Repository of the `tasks` table; every write goes through here. Statements are prepared once. */
export class TasksRepo {
  private readonly byId;
  private readonly insertStmt;
  private readonly bySession;
  private readonly unfinished;
  private readonly oldStmt;
  private readonly deleteStmt;
  private readonly updates = new Map<string, ReturnType<Db['prepare']>>();

  constructor(private readonly db: Db) {
    this.byId = db.prepare<[string], TaskRow>('SELECT * FROM tasks WHERE id = ?');
    this.insertStmt = db.prepare(`INSERT INTO tasks (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`);
    this.bySession = db.prepare<[string, number], TaskRow>('SELECT * FROM tasks WHERE session_id = ? ORDER BY created_at DESC LIMIT ?');
    this.unfinished = db.prepare<[], TaskRow>("SELECT * FROM tasks WHERE state = 'running' ORDER BY created_at");
    this.oldStmt = db.prepare<[number, number], TaskRow>('SELECT * FROM tasks WHERE created_at < ? AND state != \'running\' ORDER BY created_at LIMIT ?');
    this.deleteStmt = db.prepare('DELETE FROM tasks WHERE id = ?');
  }

  get(id: string): TaskRow | undefined {
    return this.byId.get(id);
  }

  /** Inserts a new row (columns not given are null). */
  insert(row: NewTask): void {
    const full: Record<string, unknown> = {};
    for (const c of COLUMNS) full[c] = (row as Partial<TaskRow>)[c] ?? null;
    this.insertStmt.run(full);
  }

  /** Updates the given columns of one row. */
  update(id: string, fields: Partial<Omit<TaskRow, 'id'>>): void {
    const keys = Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined).sort();
    if (keys.length === 0) return;
    const sig = keys.join(',');
    let stmt = this.updates.get(sig);
    if (!stmt) {
      stmt = this.db.prepare(`UPDATE tasks SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @__id`);
      this.updates.set(sig, stmt);
    }
    stmt.run({ ...fields, __id: id });
  }

  /** The newest `limit` tasks of a session, newest first. */
  listForSession(sessionId: string, limit = 50): TaskRow[] {
    return this.bySession.all(sessionId, limit);
  }

  /** Rows still `running` (to reconcile after a restart or a session end). */
  listRunning(): TaskRow[] {
    return this.unfinished.all();
  }

  /** Up to `limit` finished rows created before `cutoff` (retention), oldest first. */
  listOlderThan(cutoff: number, limit = 500): TaskRow[] {
    return this.oldStmt.all(cutoff, limit);
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }
}
