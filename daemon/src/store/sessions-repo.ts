import type { Affinity, SessionState } from '@holdfast/shared/control';
import type { Db } from './db.js';

/** One row of `sessions` (DESIGN §4): the durable intent and last known runtime facts. */
export interface SessionRow {
  id: string;
  principal: string;
  workspace: string;
  workspace_root: string;
  affinity: Affinity;
  session_key: string | null;
  state: SessionState;
  created_at: number;
  updated_at: number;
  guardian_pid: number | null;
  guardian_start_time: string | null;
  guardian_socket: string | null;
  guardian_proto: number | null;
  guardian_build: string | null;
  shell_pid: number | null;
  last_activity_at: number;
  ever_executed: number;
  pty_end: number;
  exit_code: number | null;
  exit_signal: string | null;
  ended_at: number | null;
  end_reason: string | null;
  /** The session's sandbox as JSON (`SessionSandbox`, issue 17); null = unconfined. */
  sandbox: string | null;
  /** Last tool use, epoch ms (migration 11, issue 18); null when no tool used it since its open. */
  last_tool_at: number | null;
}

/** The states in which a guardian should exist. */
export const LIVE_STATES: readonly SessionState[] = ['starting', 'running'];

/**
 * Repository of the `sessions` table. All writes go through here (a handoff's ownership change in
 * {@link SessionRolesRepo} calls {@link SessionsRepo.forget}). `get` is on the hot path of every
 * tool call (issue 10: 7 % of a 1 KB read's daemon time was this one SELECT), so rows read outside
 * a transaction are kept in memory until a write to that row; callers get a copy each time.
 */
export class SessionsRepo {
  private readonly cache = new Map<string, SessionRow>();
  private readonly byId;
  private readonly byLiveKey;
  private readonly live;
  private readonly all;
  private readonly insertStmt;

  constructor(private readonly db: Db) {
    this.byId = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?');
    this.byLiveKey = db.prepare<[string], SessionRow>("SELECT * FROM sessions WHERE session_key = ? AND state IN ('starting','running')");
    this.live = db.prepare<[], SessionRow>("SELECT * FROM sessions WHERE state IN ('starting','running') ORDER BY created_at");
    this.all = db.prepare<[], SessionRow>('SELECT * FROM sessions ORDER BY created_at');
    this.insertStmt = db.prepare(
      `INSERT INTO sessions (id, principal, workspace, workspace_root, affinity, session_key, state, created_at, updated_at, last_activity_at)
       VALUES (@id, @principal, @workspace, @workspace_root, @affinity, @session_key, 'starting', @now, @now, @now)`,
    );
  }

  get(id: string): SessionRow | undefined {
    const hit = this.cache.get(id);
    if (hit !== undefined) return { ...hit };
    const row = this.byId.get(id);
    // Inside a transaction a row may be uncommitted: never remember what a rollback could undo.
    if (row !== undefined && !this.db.inTransaction) this.cache.set(id, { ...row });
    return row;
  }

  /** Drops the remembered row of `id` (every write to it, here or in another repository). */
  forget(id: string): void {
    this.cache.delete(id);
  }

  findLiveByKey(key: string): SessionRow | undefined {
    return this.byLiveKey.get(key);
  }

  listLive(): SessionRow[] {
    return this.live.all();
  }

  listAll(): SessionRow[] {
    return this.all.all();
  }

  /**
   * Inserts a `starting` row.
   * @throws SqliteError (UNIQUE constraint) when a live session already holds the key.
   */
  insert(row: { id: string; principal: string; workspace: string; workspace_root: string; affinity: Affinity; session_key: string | null }, now: number): void {
    this.cache.delete(row.id);
    this.insertStmt.run({ ...row, now });
  }

  /** Updates the given columns of one row (and `updated_at`). */
  update(id: string, fields: Partial<Omit<SessionRow, 'id'>>, now: number = Date.now()): void {
    const keys = Object.keys(fields).filter((k) => k !== 'id');
    if (keys.length === 0) return;
    this.cache.delete(id);
    const sets = keys.map((k) => `${k} = @${k}`).join(', ');
    this.db.prepare(`UPDATE sessions SET ${sets}, updated_at = @__now WHERE id = @__id`).run({ ...fields, __now: now, __id: id });
  }
}
