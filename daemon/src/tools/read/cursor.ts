import { createHash } from 'node:crypto';
import { HoldfastError } from '@holdfast/shared/errors';

/** Fingerprint of the arguments that define a paged query (a cursor only continues its own). */
export function queryFingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12);
}

/**
 * An opaque cursor: the offset of the next page, bound to its query and, for the code map (issue
 * 17), to the snapshot hash of the files the first page read.
 */
export function encodeCursor(offset: number, fingerprint: string, snapshot?: string): string {
  return Buffer.from(JSON.stringify({ v: 1, o: offset, h: fingerprint, ...(snapshot !== undefined ? { s: snapshot } : {}) })).toString('base64url');
}

/**
 * The offset a cursor continues at (0 without a cursor).
 * @throws HoldfastError BAD_REQUEST for a malformed cursor or one of another query.
 */
export function decodeCursor(cursor: string | undefined, fingerprint: string): number {
  return decodeSnapshotCursor(cursor, fingerprint).offset;
}

/**
 * The offset and snapshot a cursor carries (0 and null without a cursor).
 * @throws HoldfastError BAD_REQUEST for a malformed cursor or one of another query.
 */
export function decodeSnapshotCursor(cursor: string | undefined, fingerprint: string): { offset: number; snapshot: string | null } {
  if (cursor === undefined) return { offset: 0, snapshot: null };
  let v: { v?: number; o?: number; h?: string; s?: string };
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof v;
  } catch {
    throw new HoldfastError('BAD_REQUEST', 'cursor is not one holdfast returned; repeat the call without cursor');
  }
  if (v.v !== 1 || typeof v.o !== 'number' || v.o < 0 || !Number.isInteger(v.o)) throw new HoldfastError('BAD_REQUEST', 'cursor is malformed; repeat the call without cursor');
  if (v.h !== fingerprint) throw new HoldfastError('BAD_REQUEST', 'this cursor belongs to a different query (path, query, globs or mode changed); repeat the call without cursor');
  return { offset: v.o, snapshot: typeof v.s === 'string' ? v.s : null };
}
