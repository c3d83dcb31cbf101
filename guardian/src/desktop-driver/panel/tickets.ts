import { createHash, randomBytes } from 'node:crypto';

/** Who may watch what with a ticket (issue 16 §3). */
export interface TicketClaims {
  viewId: string;
  desktopSessionId: string;
  /** The connection generation of the desktop session when the ticket was made. */
  generation: number;
  /** `page`: the panel page (exact Origin, a browser session); `app`: an MCP Apps view; `terminal`: the terminal viewer. */
  kind: 'page' | 'app' | 'terminal';
  /** The browser session a `page` ticket was made for. */
  browserSession: string | null;
}

const digest = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * One-time video-socket tickets (issue 16 §3): 256-bit random, valid once and for `ttlMs`, bound
 * to a view, a desktop session, its generation and (for the page) the browser session. Tickets
 * travel as the socket's first message, never in a URL. Only their SHA-256 is kept.
 */
export class TicketBook {
  private readonly tickets = new Map<string, { claims: TicketClaims; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new ticket for `claims`. */
  mint(claims: TicketClaims): { ticket: string; expiresAt: number } {
    const t = this.now();
    for (const [k, v] of this.tickets) if (v.expiresAt < t) this.tickets.delete(k);
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = t + this.ttlMs;
    this.tickets.set(digest(ticket), { claims, expiresAt });
    return { ticket, expiresAt };
  }

  /** Spends a ticket: its claims, or null when unknown, used or expired. */
  redeem(ticket: unknown): TicketClaims | null {
    if (typeof ticket !== 'string' || ticket.length === 0 || ticket.length > 200) return null;
    const key = digest(ticket);
    const entry = this.tickets.get(key);
    this.tickets.delete(key);
    if (!entry || entry.expiresAt < this.now()) return null;
    return entry.claims;
  }
}
