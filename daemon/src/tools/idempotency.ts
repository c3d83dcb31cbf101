import { createHash } from 'node:crypto';
import { HoldfastError } from '@holdfast/shared/errors';
import type { IdempotencyRepo } from '../store/idempotency-repo.js';
import type { ToolOutcome } from './envelope.js';

/** Canonical JSON (object keys sorted at every level), so equal arguments hash equally. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** sha256 of the canonical JSON of a call's arguments. */
export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

/**
 * The first receipt stored under (tool, session, key), replayed as it was (issue 4
 * `idempotency_key`: same key + same arguments = same receipt, no second write), or null.
 * @throws HoldfastError IDEMPOTENCY_CONFLICT when the key was used with other arguments.
 */
export function replayReceipt(repo: IdempotencyRepo, tool: string, sessionId: string, key: string, digest: string): ToolOutcome | null {
  const row = repo.get(tool, sessionId, key);
  if (!row) return null;
  if (row.args_sha256 !== digest) {
    throw new HoldfastError('IDEMPOTENCY_CONFLICT', `idempotency_key "${key}" was already used in this session with other arguments; use a new key for a different change`, {
      details: { idempotency_key: key },
    });
  }
  const stored = JSON.parse(row.receipt) as ToolOutcome;
  return { ...stored, envelope: { ...stored.envelope, hints: { ...stored.envelope.hints, idempotent_replay: true } } };
}

/** Stores a result as the receipt of (tool, session, key). */
export function storeReceipt(repo: IdempotencyRepo, tool: string, sessionId: string, key: string, digest: string, result: ToolOutcome): void {
  repo.put({ tool, session_id: sessionId, key, args_sha256: digest, receipt: JSON.stringify(result), created_at: Date.now() });
}
