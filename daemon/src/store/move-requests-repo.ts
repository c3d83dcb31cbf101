import type { Db } from './db.js';

/** States of a move request: waiting for confirmation, moved, or failed on submit. */
export type MoveRequestState = 'pending' | 'submitted' | 'failed';

/** One row of `move_requests` (issue 4 `move_out`). */
export interface MoveRequestRow {
  /** `mv_…` */
  id: string;
  /** Random UUID the client passes to `submit`. */
  confirmation_uuid: string;
  session_id: string;
  /** Who prepared it (issue 14); null for requests from before roles existed (read as the owner). */
  principal: string | null;
  purpose: string;
  idempotency_key: string;
  /** JSON of the frozen manifest (see tools/move-out/manifest.ts). */
  manifest: string;
  manifest_sha256: string;
  created_at: number;
  expires_at: number;
  state: MoveRequestState;
  submitted_at: number | null;
  /** JSON of the submit receipt (where each target went). */
  receipt: string | null;
}

/** Repository of `move_requests`. */
export class MoveRequestsRepo {
  private readonly insertStmt;
  private readonly byUuid;
  private readonly finishStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO move_requests (id, confirmation_uuid, session_id, principal, purpose, idempotency_key, manifest, manifest_sha256, created_at, expires_at, state)
       VALUES (@id, @confirmation_uuid, @session_id, @principal, @purpose, @idempotency_key, @manifest, @manifest_sha256, @created_at, @expires_at, 'pending')`,
    );
    this.byUuid = db.prepare<[string], MoveRequestRow>('SELECT * FROM move_requests WHERE confirmation_uuid = ?');
    this.finishStmt = db.prepare("UPDATE move_requests SET state = ?, submitted_at = ?, receipt = ? WHERE id = ? AND state = 'pending'");
  }

  insert(row: Omit<MoveRequestRow, 'state' | 'submitted_at' | 'receipt'>): void {
    this.insertStmt.run(row);
  }

  byConfirmation(uuid: string): MoveRequestRow | undefined {
    return this.byUuid.get(uuid);
  }

  /** Moves a pending request to its final state. @returns false when it was no longer pending. */
  finish(id: string, state: Exclude<MoveRequestState, 'pending'>, receipt: unknown, now = Date.now()): boolean {
    return this.finishStmt.run(state, now, JSON.stringify(receipt), id).changes === 1;
  }
}
