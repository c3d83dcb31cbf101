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

/** Append-only event log. Every session state change writes one row (issue 2). */
export class EventsRepo {
  private readonly insertStmt;
  private readonly bySession;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO events (at, session_id, workspace, kind, tool, status, data) VALUES (@at, @session_id, @workspace, @kind, @tool, @status, @data)',
    );
    this.bySession = db.prepare<[string, number, number], EventRow>('SELECT * FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  }

  /** Appends an event; returns its sequence number. */
  append(e: NewEvent, at: number = Date.now()): number {
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

  /** Events of one session after `afterSeq`, oldest first. */
  listForSession(sessionId: string, afterSeq = 0, limit = 100): EventRow[] {
    return this.bySession.all(sessionId, afterSeq, limit);
  }
}
