import { createHash } from 'node:crypto';
import type { OAuthModelName } from '@holdfast/shared/control';
import type { Db } from '../store/db.js';

/** One row of `oauth_store` as read back. Times epoch ms. */
export interface OAuthStoreRow {
  model: OAuthModelName;
  id: string;
  payload: Record<string, unknown>;
  grant_id: string | null;
  expires_at: number | null;
  created_at: number;
}

interface RawRow {
  model: OAuthModelName;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  expires_at: number | null;
  consumed_at: number | null;
  created_at: number;
}

/** Models whose id is a bearer credential: stored as `sha256:<hex>` of it, never the id itself. */
const HASHED_MODELS: ReadonlySet<OAuthModelName> = new Set<OAuthModelName>(['RefreshToken']);

/**
 * The id a row of `model` is stored under: a refresh token (its id is the token) as
 * `sha256:<hex of its SHA-256>` (migration 13: secrets hashed at rest), every other model as is.
 */
export function storedId(model: OAuthModelName, id: string): string {
  return HASHED_MODELS.has(model) ? `sha256:${createHash('sha256').update(id).digest('hex')}` : id;
}

/** Expired rows are swept at most this often, ms. */
const SWEEP_INTERVAL_MS = 60_000;
/**
 * A dynamically registered client the owner never approved is forgotten after this long, ms:
 * registration is open to anyone who reaches the server, so unapproved ones must not pile up.
 */
export const UNAPPROVED_CLIENT_TTL_MS = 7 * 86_400_000;

/**
 * The storage behind oidc-provider's adapter interface (issue 14; oidc-provider docs "adapter"):
 * one JSON payload per (model, id), its expiry, and the secondary keys oidc-provider looks rows
 * up by — `grantId` (every token of a grant goes when the grant is revoked) and a Session's `uid`.
 * An expired row reads as absent and is swept; a consumed one reads back with `consumed` (epoch
 * seconds), which is how oidc-provider refuses a second use of a code or a rotated refresh token.
 * Registered clients never expire, except ones the owner did not approve within
 * {@link UNAPPROVED_CLIENT_TTL_MS}. Refresh tokens are stored hashed ({@link storedId}) and without
 * their `jti`: the row is found from the presented token, which is put back as `jti`.
 */
export class OAuthStore {
  private lastSweep = 0;
  private readonly upsertStmt;
  private readonly findStmt;
  private readonly byUidStmt;
  private readonly consumeStmt;
  private readonly destroyStmt;
  private readonly byGrantStmt;
  private readonly sweepStmt;
  private readonly listStmt;

  constructor(private readonly db: Db) {
    this.upsertStmt = db.prepare(
      `INSERT INTO oauth_store (model, id, payload, grant_id, uid, expires_at, consumed_at, created_at)
       VALUES (@model, @id, @payload, @grant_id, @uid, @expires_at, NULL, @now)
       ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`,
    );
    this.findStmt = db.prepare<[string, string], RawRow>('SELECT * FROM oauth_store WHERE model = ? AND id = ?');
    this.byUidStmt = db.prepare<[string], RawRow>("SELECT * FROM oauth_store WHERE model = 'Session' AND uid = ?");
    this.consumeStmt = db.prepare('UPDATE oauth_store SET consumed_at = ? WHERE model = ? AND id = ?');
    this.destroyStmt = db.prepare('DELETE FROM oauth_store WHERE model = ? AND id = ?');
    this.byGrantStmt = db.prepare("DELETE FROM oauth_store WHERE grant_id = ? AND model <> 'Grant'");
    this.sweepStmt = db.prepare(
      `DELETE FROM oauth_store WHERE (expires_at IS NOT NULL AND expires_at <= @now)
         OR (model = 'Client' AND created_at <= @stale AND id NOT IN (SELECT client_id FROM oauth_principals))`,
    );
    this.listStmt = db.prepare<[string, number], RawRow>('SELECT * FROM oauth_store WHERE model = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at');
  }

  /** Stores a model; `expiresInS` undefined = no expiry (registered clients). */
  upsert(model: OAuthModelName, id: string, payload: Record<string, unknown>, expiresInS: number | undefined, now = Date.now()): void {
    this.maybeSweep(now);
    const grantId = model !== 'Grant' && typeof payload.grantId === 'string' ? payload.grantId : null;
    const uid = model === 'Session' && typeof payload.uid === 'string' ? payload.uid : null;
    let stored = payload;
    if (HASHED_MODELS.has(model)) {
      const { jti: _jti, ...rest } = payload;
      stored = rest;
    }
    this.upsertStmt.run({ model, id: storedId(model, id), payload: JSON.stringify(stored), grant_id: grantId, uid, expires_at: expiresInS === undefined ? null : now + expiresInS * 1000, now });
  }

  /** The payload of a live row (with `consumed` when it was consumed), or null. */
  find(model: OAuthModelName, id: string, now = Date.now()): Record<string, unknown> | null {
    const payload = this.payloadOf(this.findStmt.get(model, storedId(model, id)), now);
    if (payload !== null && HASHED_MODELS.has(model)) payload.jti = id;
    return payload;
  }

  /** The Session whose `uid` this is, or null. */
  findSessionByUid(uid: string, now = Date.now()): Record<string, unknown> | null {
    return this.payloadOf(this.byUidStmt.get(uid), now);
  }

  /** Marks a row used (codes, rotated refresh tokens). */
  consume(model: OAuthModelName, id: string, now = Date.now()): void {
    this.consumeStmt.run(Math.floor(now / 1000), model, storedId(model, id));
  }

  /** Removes a row. @returns whether there was one. */
  destroy(model: OAuthModelName, id: string): boolean {
    return this.destroyStmt.run(model, storedId(model, id)).changes === 1;
  }

  /** Removes every token and code of a grant (not the Grant row itself). @returns rows removed. */
  revokeByGrantId(grantId: string): number {
    return this.byGrantStmt.run(grantId).changes;
  }

  /** Live rows of one model, oldest first. */
  list(model: OAuthModelName, now = Date.now()): OAuthStoreRow[] {
    return this.listStmt.all(model, now).map((r) => ({ model: r.model, id: r.id, payload: this.payloadOf(r, now)!, grant_id: r.grant_id, expires_at: r.expires_at, created_at: r.created_at }));
  }

  /** Live, unconsumed rows of `model` that belong to a grant. */
  countForGrant(model: OAuthModelName, grantId: string, now = Date.now()): number {
    return (
      this.db
        .prepare<[string, string, number], { n: number }>('SELECT COUNT(*) AS n FROM oauth_store WHERE model = ? AND grant_id = ? AND consumed_at IS NULL AND (expires_at IS NULL OR expires_at > ?)')
        .get(model, grantId, now)?.n ?? 0
    );
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  private payloadOf(row: RawRow | undefined, now: number): Record<string, unknown> | null {
    if (!row) return null;
    if (row.expires_at !== null && row.expires_at <= now) return null;
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    if (row.consumed_at !== null) payload.consumed = row.consumed_at;
    return payload;
  }

  private maybeSweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    this.sweepStmt.run({ now, stale: now - UNAPPROVED_CLIENT_TTL_MS });
  }
}
