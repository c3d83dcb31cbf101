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
  /** Only events before this sequence number (paging newest first). */
  beforeSeq?: number;
  /** `desc`: newest first (issue 8); `asc` (default): oldest first. */
  order?: 'asc' | 'desc';
  limit: number;
  tool?: string;
  status?: string;
}

/** Longest delay of a queued tool-call event, ms. */
export const EVENT_FLUSH_MS = 25;

/**
 * The events of a workspace's observation stream (issue 11): events recorded for the workspace,
 * events of its sessions recorded before tool-call events carried a workspace, and daemon-wide
 * events (no session, no workspace: daemon start and stop, session-less calls).
 */
const STREAM_WHERE =
  '(e.workspace = @workspace OR (e.workspace IS NULL AND (e.session_id IS NULL OR e.session_id IN (SELECT id FROM sessions WHERE workspace = @workspace))))';

/**
 * Append-only event log. Every session state change writes one row (issue 2); every tool call one
 * (issue 5). Listeners registered with {@link onCommitted} learn about rows only after their
 * transaction has committed, so a live stream never shows an event that is not stored (issue 11).
 */
export class EventsRepo {
  private readonly insertStmt;
  private readonly bySession;
  private readonly streamForward;
  private readonly streamBackward;
  private readonly headStmt;
  private readonly activitySeqStmt;
  private readonly queries = new Map<string, ReturnType<Db['prepare']>>();
  private pending: { e: NewEvent; at: number }[] = [];
  private flushScheduled = false;
  private readonly committed: ((lastSeq: number) => void)[] = [];
  /** When it returns true, queued events are written on the next turn instead of after {@link EVENT_FLUSH_MS}. */
  eager: () => boolean = () => false;

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
    this.streamForward = db.prepare(`SELECT e.* FROM events e WHERE e.seq > @after AND ${STREAM_WHERE} ORDER BY e.seq LIMIT @limit`);
    this.streamBackward = db.prepare(`SELECT e.* FROM events e WHERE e.seq < @before AND ${STREAM_WHERE} ORDER BY e.seq DESC LIMIT @limit`);
    this.headStmt = db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM events');
    this.activitySeqStmt = db.prepare("UPDATE events SET data = json_set(data, '$.activity.sequence', ?) WHERE seq = ?");
  }

  /**
   * Writes an event's own sequence into the activity snapshot it carries (issue 11): call inside
   * {@link appendWith}'s `also`, so the stored snapshot equals the one the call returns.
   */
  stampActivitySequence(seq: number): void {
    this.activitySeqStmt.run(seq, seq);
  }

  /** Calls `fn` with the highest stored sequence after every commit of new events. */
  onCommitted(fn: (lastSeq: number) => void): () => void {
    this.committed.push(fn);
    return () => {
      const i = this.committed.indexOf(fn);
      if (i >= 0) this.committed.splice(i, 1);
    };
  }

  private notify(lastSeq: number): void {
    for (const fn of this.committed) fn(lastSeq);
  }

  /** Appends an event at once; returns its sequence number (-1 when a full disk dropped it, issue 18). */
  append(e: NewEvent, at: number = Date.now()): number {
    try {
      return this.appendWith(e, () => undefined, at);
    } catch (err) {
      if (this.onWriteError(err)) return -1;
      throw err;
    }
  }

  /**
   * Appends an event at once (after any queued ones) and runs `also(seq)` in the same transaction,
   * so rows that belong to the event (an activity snapshot) commit with it; returns its sequence.
   */
  appendWith(e: NewEvent, also: (seq: number) => void, at: number = Date.now()): number {
    this.flush();
    const seq = this.db.transaction(() => {
      const n = this.insert(e, at);
      also(n);
      return n;
    })();
    this.notify(seq);
    return seq;
  }

  /**
   * Queues an event and writes the queue within {@link EVENT_FLUSH_MS} in one transaction (one WAL
   * append for a burst of tool calls instead of one per call; on the next turn while someone
   * observes, see {@link eager}). Readers flush first, so history is never stale; a crash loses at
   * most that window of tool-call events (never lifecycle events, which use {@link append}, nor
   * calls that carry activity or plan ids).
   */
  appendSoon(e: NewEvent, at: number = Date.now()): void {
    this.pending.push({ e, at });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (this.eager()) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), EVENT_FLUSH_MS).unref();
  }

  /** Writes queued events (see {@link appendSoon}). */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    let last: number;
    try {
      last = this.db.transaction(() => {
        let n = 0;
        for (const { e, at } of batch) n = this.insert(e, at);
        return n;
      })();
    } catch (err) {
      if (this.onWriteError(err)) return; // a full disk drops these history rows (issue 18)
      throw err;
    }
    this.notify(last);
  }

  /** The highest stored sequence (0 when empty). */
  headSeq(): number {
    this.flush();
    return this.headStmt.get()?.seq ?? 0;
  }

  /** Stream events of a workspace after `afterSeq`, oldest first (issue 11). */
  streamAfter(workspace: string, afterSeq: number, limit: number): EventRow[] {
    return this.streamForward.all({ workspace, after: afterSeq, limit }) as EventRow[];
  }

  /** Stream events of a workspace before `beforeSeq`, newest first (history replay, issue 11). */
  streamBefore(workspace: string, beforeSeq: number, limit: number): EventRow[] {
    return this.streamBackward.all({ workspace, before: beforeSeq, limit }) as EventRow[];
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
   * it (events of the sessions it owns or holds a role on, plus workspace events without a session), optionally only one
   * tool and/or status (observe view=history, issue 5).
   */
  query(q: EventQuery): EventRow[] {
    this.flush();
    const where: string[] = ['e.seq > @after'];
    if (q.beforeSeq !== undefined) where.push('e.seq < @before');
    if (q.sessionId !== undefined) where.push('e.session_id = @session');
    // Sessions the principal owns or holds a role on (issue 14).
    else where.push('((e.session_id IS NULL AND e.workspace = @workspace) OR e.session_id IN (SELECT id FROM sessions WHERE workspace = @workspace AND (principal = @principal OR id IN (SELECT session_id FROM session_roles WHERE principal = @principal))))');
    if (q.tool !== undefined) where.push('e.tool = @tool');
    if (q.status !== undefined) where.push('e.status = @status');
    const sql = `SELECT e.* FROM events e WHERE ${where.join(' AND ')} ORDER BY e.seq ${q.order === 'desc' ? 'DESC' : 'ASC'} LIMIT @limit`;
    let stmt = this.queries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.queries.set(sql, stmt);
    }
    return stmt.all({ after: q.afterSeq, before: q.beforeSeq ?? null, session: q.sessionId ?? null, workspace: q.workspace ?? null, principal: q.principal ?? null, tool: q.tool ?? null, status: q.status ?? null, limit: q.limit }) as EventRow[];
  }

  /** The newest events of one kind since `sinceAt` (epoch ms), newest first (doctor). */
  ofKindSince(kind: string, sinceAt: number, limit = 50): EventRow[] {
    this.flush();
    const sql = 'SELECT * FROM events WHERE kind = @kind AND at >= @since ORDER BY seq DESC LIMIT @limit';
    let stmt = this.queries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.queries.set(sql, stmt);
    }
    return stmt.all({ kind, since: sinceAt, limit }) as EventRow[];
  }

  /** Events of one session after `afterSeq`, oldest first. */
  listForSession(sessionId: string, afterSeq = 0, limit = 100): EventRow[] {
    this.flush();
    return this.bySession.all(sessionId, afterSeq, limit);
  }
}

/**
 * Retention of events (issue 11, `retention.event_days`): events recorded before a cutoff, except
 * those of live sessions (a running session's history is never cut).
 */
export class EventsRetention {
  private readonly countStmt;
  private readonly deleteStmt;
  private readonly statsStmt;

  constructor(private readonly db: Db) {
    const where = "at < ? AND (session_id IS NULL OR session_id NOT IN (SELECT id FROM sessions WHERE state IN ('starting', 'running')))";
    this.countStmt = db.prepare<[number], { n: number }>(`SELECT COUNT(*) AS n FROM events WHERE ${where}`);
    this.deleteStmt = db.prepare(`DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE ${where} ORDER BY seq LIMIT ?)`);
    this.statsStmt = db.prepare<[], { n: number; oldest: number | null }>('SELECT COUNT(*) AS n, MIN(at) AS oldest FROM events');
  }

  /** How many events a sweep with this cutoff would remove. */
  countExpired(cutoff: number): number {
    return this.countStmt.get(cutoff)?.n ?? 0;
  }

  /** Removes them in batches; returns how many went. */
  deleteExpired(cutoff: number, batch = 5000): number {
    let total = 0;
    for (;;) {
      const n = this.deleteStmt.run(cutoff, batch).changes;
      total += n;
      if (n < batch) return total;
    }
  }

  /** Events stored and the time of the oldest (doctor). */
  stats(): { events: number; oldest_at: number | null } {
    const r = this.statsStmt.get();
    return { events: r?.n ?? 0, oldest_at: r?.oldest ?? null };
  }
}
