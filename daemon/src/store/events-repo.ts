import type { Db } from './db.js';

/** One event row: a session lifecycle change or a tool call (DESIGN §2 `events`). */
export interface EventRow {
  seq: number;
  at: number;
  session_id: string | null;
  workspace: string | null;
  kind: string;
  tool: string | null;
  status: string | null;
  data: string | null;
}

export interface NewEvent {
  session_id?: string | null;
  workspace?: string | null;
  kind: string;
  tool?: string | null;
  status?: string | null;
  data?: Record<string, unknown> | null;
}

/** A history query (see {@link EventsRepo.query}): `sessionId`, or `workspace` + `principal`. */
export interface EventQuery {
  sessionId?: string;
  workspace?: string;
  principal?: string;
  afterSeq: number;
  limit: number;
  tool?: string;
  status?: string;
}

/** Longest delay of a queued tool-call event, ms. */
export const EVENT_FLUSH_MS = 25;

/** Append-only event log. Every session state change writes one row (issue 2). */
export class EventsRepo {
  private readonly insertStmt;
  private readonly bySession;
  private readonly queries = new Map<string, ReturnType<Db['prepare']>>();
  private pending: { e: NewEvent; at: number }[] = [];
  private flushScheduled = false;

  /**
   * @param onWriteError sees a failed write first; when it returns true (a full disk, issue 18) the
   *   events are dropped instead of failing the caller — history is best effort, the runtime is not.
   */
  constructor(
    private readonly db: Db,
    private readonly onWriteError: (err: unknown) => boolean = () => false,
  ) {
    this.insertStmt = db.prepare(
      'INSERT INTO events (at, session_id, workspace, kind, tool, status, data) VALUES (@at, @session_id, @workspace, @kind, @tool, @status, @data)',
    );
    this.bySession = db.prepare<[string, number, number], EventRow>('SELECT * FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  }

  /** Appends an event at once; returns its sequence number (-1 when a full disk dropped it). */
  append(e: NewEvent, at: number = Date.now()): number {
    this.flush();
    try {
      return this.insert(e, at);
    } catch (err) {
      if (this.onWriteError(err)) return -1;
      throw err;
    }
  }

  /**
   * Queues an event and writes the queue within {@link EVENT_FLUSH_MS} in one transaction (one WAL
   * append for a burst of tool calls instead of one per call). Readers flush first, so history is
   * never stale; a crash loses at most that window of tool-call events (never lifecycle events,
   * which use {@link append}).
   */
  appendSoon(e: NewEvent, at: number = Date.now()): void {
    this.pending.push({ e, at });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setTimeout(() => this.flush(), EVENT_FLUSH_MS).unref();
  }

  /** Writes queued events (see {@link appendSoon}). */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    try {
      this.db.transaction(() => {
        for (const { e, at } of batch) this.insert(e, at);
      })();
    } catch (err) {
      if (!this.onWriteError(err)) throw err;
    }
  }

  private insert(e: NewEvent, at: number): number {
    const r = this.insertStmt.run({
      at,
      session_id: e.session_id ?? null,
      workspace: e.workspace ?? null,
      kind: e.kind,
      tool: e.tool ?? null,
      status: e.status ?? null,
      data: e.data ? JSON.stringify(e.data) : null,
    });
    return Number(r.lastInsertRowid);
  }

  /**
   * Events after `afterSeq`, oldest first, of one session or of one workspace as a principal sees
   * it (its own sessions' events plus workspace events without a session), optionally only one
   * tool and/or status (observe view=history, issue 5).
   */
  query(q: EventQuery): EventRow[] {
    this.flush();
    const where: string[] = ['e.seq > @after'];
    if (q.sessionId !== undefined) where.push('e.session_id = @session');
    else where.push('((e.session_id IS NULL AND e.workspace = @workspace) OR e.session_id IN (SELECT id FROM sessions WHERE workspace = @workspace AND principal = @principal))');
    if (q.tool !== undefined) where.push('e.tool = @tool');
    if (q.status !== undefined) where.push('e.status = @status');
    const sql = `SELECT e.* FROM events e WHERE ${where.join(' AND ')} ORDER BY e.seq LIMIT @limit`;
    let stmt = this.queries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.queries.set(sql, stmt);
    }
    return stmt.all({ after: q.afterSeq, session: q.sessionId ?? null, workspace: q.workspace ?? null, principal: q.principal ?? null, tool: q.tool ?? null, status: q.status ?? null, limit: q.limit }) as EventRow[];
  }

  /** Events of one session after `afterSeq`, oldest first. */
  listForSession(sessionId: string, afterSeq = 0, limit = 100): EventRow[] {
    this.flush();
    return this.bySession.all(sessionId, afterSeq, limit);
  }
}
