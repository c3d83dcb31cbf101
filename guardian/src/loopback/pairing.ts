import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * One-time pairing of a loopback page (issue 12 secret pages; issue 16's desktop panel reuses it):
 * the page URL carries a random token in its **fragment** (`http://127.0.0.1:PORT/p/<id>#<token>`)
 * — browsers never send a fragment to the server, put it in a `Referer` or in server logs. The
 * page's script reads it, removes it from the address bar and exchanges it **once** (`exchange`)
 * for an HttpOnly, SameSite=Strict cookie scoped to the page's path plus a CSRF token that every
 * later state-changing request must echo in a header (`authorize`). A used, unknown or expired
 * token, a missing or wrong cookie, or a wrong CSRF token is refused; every pairing expires after
 * its TTL whether used or not. Comparisons are constant-time.
 */
export interface PairingTicket {
  /** Public id (in the path). */
  id: string;
  /** Secret one-time token (for the URL fragment only). */
  token: string;
  expiresAt: number;
}

/** What a successful exchange hands the page: the cookie value (set HttpOnly) and the CSRF token (returned in the body). */
export interface PairingGrant {
  cookie: string;
  csrf: string;
  expiresAt: number;
}

/** Why a pairing step was refused (→ HTTP 403 for `mismatch`/`unauthorized`, 410 for the rest). */
export type PairingRefusal = 'unknown' | 'expired' | 'used' | 'mismatch' | 'unauthorized' | 'closed';

interface Entry<T> {
  id: string;
  token: Buffer;
  expiresAt: number;
  state: 'new' | 'paired' | 'closed';
  cookie?: Buffer;
  csrf?: Buffer;
  data: T;
}

const b64 = (n: number): string => randomBytes(n).toString('base64url');

function same(a: Buffer | undefined, b: string | undefined | null): boolean {
  if (a === undefined || typeof b !== 'string') return false;
  const bb = Buffer.from(b);
  return bb.length === a.length && timingSafeEqual(a, bb);
}

/** Pairings of one loopback server, each carrying the caller's `data`. */
export class PairingStore<T> {
  private readonly entries = new Map<string, Entry<T>>();

  /** Starts a pairing valid for `ttlMs`. */
  create(data: T, ttlMs: number, now = Date.now()): PairingTicket {
    const id = b64(12);
    const token = b64(32);
    this.entries.set(id, { id, token: Buffer.from(token), expiresAt: now + ttlMs, state: 'new', data });
    return { id, token, expiresAt: now + ttlMs };
  }

  /** The data of a live pairing (new or paired, not expired), or null. */
  get(id: string, now = Date.now()): { data: T; state: 'new' | 'paired'; expiresAt: number } | null {
    const e = this.entries.get(id);
    if (!e || e.state === 'closed' || e.expiresAt <= now) return null;
    return { data: e.data, state: e.state, expiresAt: e.expiresAt };
  }

  /** Exchanges the one-time token for a cookie and a CSRF token; a second exchange is refused (`used`). */
  exchange(id: string, token: unknown, now = Date.now()): PairingGrant | { refused: PairingRefusal } {
    const e = this.entries.get(id);
    if (!e) return { refused: 'unknown' };
    if (e.expiresAt <= now) return { refused: 'expired' };
    if (e.state === 'closed') return { refused: 'closed' };
    if (e.state === 'paired') return { refused: 'used' };
    if (!same(e.token, typeof token === 'string' ? token : null)) return { refused: 'mismatch' };
    const cookie = b64(32);
    const csrf = b64(32);
    e.state = 'paired';
    e.token.fill(0);
    e.cookie = Buffer.from(cookie);
    e.csrf = Buffer.from(csrf);
    return { cookie, csrf, expiresAt: e.expiresAt };
  }

  /** Checks a state-changing request of a paired page: its cookie value and its CSRF header. */
  authorize(id: string, cookie: string | null, csrf: string | null, now = Date.now()): { data: T } | { refused: PairingRefusal } {
    const e = this.entries.get(id);
    if (!e) return { refused: 'unknown' };
    if (e.expiresAt <= now) return { refused: 'expired' };
    if (e.state === 'closed') return { refused: 'closed' };
    if (e.state !== 'paired' || !same(e.cookie, cookie) || !same(e.csrf, csrf)) return { refused: 'unauthorized' };
    return { data: e.data };
  }

  /** Ends a pairing (done, declined or replaced): later requests are refused with `closed`. */
  close(id: string): void {
    const e = this.entries.get(id);
    if (e) e.state = 'closed';
  }

  /** Forgets pairings that expired or were closed more than `graceMs` ago; returns how many are still live. */
  sweep(now = Date.now(), graceMs = 60_000): number {
    let live = 0;
    for (const [id, e] of this.entries) {
      if (e.expiresAt + graceMs <= now) this.entries.delete(id);
      else if (e.state !== 'closed' && e.expiresAt > now) live++;
    }
    return live;
  }

  /** Live pairings (new or paired, not expired). */
  get live(): number {
    const now = Date.now();
    let n = 0;
    for (const e of this.entries.values()) if (e.state !== 'closed' && e.expiresAt > now) n++;
    return n;
  }
}

/** Name of the cookie a paired page carries. */
export const PAIRING_COOKIE = 'hf_pair';

/** `Set-Cookie` value of a pairing: HttpOnly, SameSite=Strict, limited to `path`, expiring with the pairing. */
export function pairingCookie(value: string, path: string, maxAgeS: number): string {
  return `${PAIRING_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=${path}; Max-Age=${Math.max(0, Math.floor(maxAgeS))}`;
}

/** The pairing cookie's value from a `Cookie` header, or null. */
export function readPairingCookie(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === PAIRING_COOKIE) return part.slice(i + 1).trim();
  }
  return null;
}
