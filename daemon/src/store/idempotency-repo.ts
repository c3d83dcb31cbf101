import type { Db } from './db.js';

/** One stored receipt (issue 4 `idempotency_key`; generic so `execute` can reuse it). */
export interface IdempotencyRow {
  tool: string;
  session_id: string;
  key: string;
  /** sha256 of the canonical JSON of the call's arguments. */
  args_sha256: string;
  /** JSON of the first successful result. */
  receipt: string;
  created_at: number;
}

/**
 * Idempotency receipts per (tool, session, key). A receipt is kept at least `ttlMs`
 * (FileLimits.IDEMPOTENCY_TTL_MS ≥ 30 min); older rows are purged lazily on insert.
 */
export class IdempotencyRepo {
  private readonly getStmt;
  private readonly insertStmt;
  private readonly purgeStmt;
  private lastPurge = 0;

  constructor(
    db: Db,
    private readonly ttlMs: number,
  ) {
    this.getStmt = db.prepare<[string, string, string, number], IdempotencyRow>('SELECT * FROM idempotency_receipts WHERE tool = ? AND session_id = ? AND key = ? AND created_at >= ?');
    this.insertStmt = db.prepare(
      `INSERT INTO idempotency_receipts (tool, session_id, key, args_sha256, receipt, created_at) VALUES (@tool, @session_id, @key, @args_sha256, @receipt, @created_at)
       ON CONFLICT (tool, session_id, key) DO UPDATE SET args_sha256 = excluded.args_sha256, receipt = excluded.receipt, created_at = excluded.created_at`,
    );
    this.purgeStmt = db.prepare('DELETE FROM idempotency_receipts WHERE created_at < ?');
  }

  /** The live receipt for (tool, session, key), if any. */
  get(tool: string, sessionId: string, key: string, now = Date.now()): IdempotencyRow | undefined {
    return this.getStmt.get(tool, sessionId, key, now - this.ttlMs);
  }

  /** Stores (or replaces an expired) receipt. */
  put(row: IdempotencyRow): void {
    this.insertStmt.run(row);
    if (row.created_at - this.lastPurge > 60_000) {
      this.lastPurge = row.created_at;
      this.purgeStmt.run(row.created_at - this.ttlMs);
    }
  }
}
