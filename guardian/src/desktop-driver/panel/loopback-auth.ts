import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Fragment-secret pairing for a loopback page (issue 16 §1), a small module of its own so another
 * loopback page can use the same pattern:
 *
 * 1. The page URL is opened for the person with a one-time **bootstrap secret** in its fragment
 *    (`#s=…`), which browsers never send to a server, never put in `Referer`, and which the page
 *    clears from the address bar at once. A secret works once, within `bootstrapTtlMs`.
 * 2. The page POSTs the secret; the answer sets an **HttpOnly, SameSite=Strict** session cookie
 *    and returns a **CSRF token** the page keeps in memory (and sessionStorage). A browser session
 *    lasts at most `sessionMaxMs`; at most `maxSessions` are kept (the oldest goes first).
 * 3. Every request must carry the exact `Host` (`127.0.0.1:<port>`, DNS rebinding); every
 *    state-changing request the exact `Origin` and the CSRF token in a header.
 *
 * Secrets, cookies and tokens are 256-bit random values (base64url); only their SHA-256 is kept,
 * and comparisons of tokens are constant-time.
 */
export interface LoopbackAuthOptions {
  bootstrapTtlMs: number;
  sessionMaxMs: number;
  maxSessions: number;
  /** Cookie name (no prefix: `__Host-` needs a secure origin, which loopback HTTP is not). */
  cookieName: string;
  now?: () => number;
}

/** One browser session (the cookie's holder). */
export interface BrowserSession {
  /** Short id for logs and for binding tickets (not the cookie). */
  id: string;
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

/** What the bootstrap exchange gives the page. */
export interface Exchanged {
  session: BrowserSession;
  /** The `Set-Cookie` header value. */
  setCookie: string;
}

const token = (): string => randomBytes(32).toString('base64url');
const digest = (s: string): string => createHash('sha256').update(s).digest('hex');

export class LoopbackAuth {
  private readonly secrets = new Map<string, number>();
  private readonly sessions = new Map<string, BrowserSession>();
  private readonly now: () => number;

  constructor(private readonly o: LoopbackAuthOptions) {
    this.now = o.now ?? Date.now;
  }

  /** A new one-time bootstrap secret (for the URL fragment) and when it expires (epoch ms). */
  mintSecret(): { secret: string; expiresAt: number } {
    this.sweep();
    const secret = token();
    const expiresAt = this.now() + this.o.bootstrapTtlMs;
    this.secrets.set(digest(secret), expiresAt);
    return { secret, expiresAt };
  }

  /**
   * Exchanges a bootstrap secret for a browser session. The secret is spent whatever happens
   * next; an unknown, used or expired secret answers null.
   */
  exchange(secret: unknown): Exchanged | null {
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > 200) return null;
    const key = digest(secret);
    const expiresAt = this.secrets.get(key);
    this.secrets.delete(key);
    if (expiresAt === undefined || expiresAt < this.now()) return null;
    this.sweep();
    while (this.sessions.size >= this.o.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    const cookie = token();
    const t = this.now();
    const session: BrowserSession = { id: digest(cookie).slice(0, 16), csrf: token(), createdAt: t, expiresAt: t + this.o.sessionMaxMs };
    this.sessions.set(digest(cookie), session);
    const maxAge = Math.floor(this.o.sessionMaxMs / 1000);
    return { session, setCookie: `${this.o.cookieName}=${cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}` };
  }

  /** The live browser session of a request's cookie, or null. */
  session(req: IncomingMessage): BrowserSession | null {
    const cookie = readCookie(req.headers.cookie, this.o.cookieName);
    if (!cookie) return null;
    const s = this.sessions.get(digest(cookie));
    if (!s) return null;
    if (s.expiresAt < this.now()) {
      this.sessions.delete(digest(cookie));
      return null;
    }
    return s;
  }

  /** True when `header` is the session's CSRF token (constant-time). */
  csrfMatches(s: BrowserSession, header: string | string[] | undefined): boolean {
    if (typeof header !== 'string') return false;
    const a = Buffer.from(header);
    const b = Buffer.from(s.csrf);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Live browser sessions. */
  get sessionCount(): number {
    this.sweep();
    return this.sessions.size;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, exp] of this.secrets) if (exp < t) this.secrets.delete(k);
    for (const [k, s] of this.sessions) if (s.expiresAt < t) this.sessions.delete(k);
  }
}

/** The value of cookie `name` in a `Cookie` header, or null. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

/**
 * Checks a request against the page's own origin `http://127.0.0.1:<port>`: the `Host` header
 * must be exactly `127.0.0.1:<port>`; with `origin: 'required'` the `Origin` header must be the
 * page's origin; with `'if-present'` a missing one is accepted (non-browser clients send none, and
 * browsers always send it on WebSocket and POST requests); `'any'` skips it. A browser's
 * `Sec-Fetch-Site` other than `same-origin` or `none` is refused too.
 * @returns null when the request passes, else the reason.
 */
export function originProblem(req: IncomingMessage, port: number, origin: 'required' | 'if-present' | 'any'): string | null {
  if (req.headers.host !== `127.0.0.1:${port}`) return `Host must be 127.0.0.1:${port}`;
  const site = req.headers['sec-fetch-site'];
  if (origin !== 'any' && site !== undefined && site !== 'same-origin' && site !== 'none') return `cross-site request (${String(site)})`;
  const o = req.headers.origin;
  if (origin === 'required' && o !== `http://127.0.0.1:${port}`) return 'Origin must be this page';
  if (origin === 'if-present' && o !== undefined && o !== `http://127.0.0.1:${port}`) return 'Origin must be this page';
  return null;
}

/**
 * Response headers of every panel answer: a CSP without any external source (scripts, styles and
 * connections only from the page's own origin), no framing, no sniffing, no referrer, no caching.
 */
export function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' blob: data:",
      `connect-src 'self' ws://127.0.0.1:${port}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}
