import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  legacyStatelessFallback,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type LegacyHttpHandler,
  type Server,
} from '@modelcontextprotocol/server';
import { LegacySessionConstants } from './constants.js';
import { BoundedEventStore } from './event-store.js';
import type { Principal } from './principals.js';

/**
 * Serving 2025-era clients on `/mcp` (MCP 2025-11-25 Streamable HTTP): an `initialize` opens a
 * transport session (`Mcp-Session-Id`, GET stream, DELETE, `Last-Event-ID` resumability from a
 * bounded event store); requests naming an unknown session — or a session opened by another
 * principal — get 404 so the client re-initializes (field failure #7); a POST without a session
 * id that is not `initialize` is served statelessly by a fresh instance; GET/DELETE without a
 * session id get 405.
 *
 * Transport sessions are disposable and in memory only: they carry no holdfast state (that is
 * the daemon's `remote_session_id`, DESIGN §4.1), so losing them on an adapter restart costs the
 * client one re-initialize and nothing else.
 */
interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  principal: string;
  lastUsedMs: number;
}

/** Per-request inputs for {@link LegacySessions.handle}. */
export interface LegacyRequest {
  request: Request;
  /** The parsed JSON body, when the POST body parsed. */
  parsedBody: unknown;
  principal: Principal;
  authInfo: AuthInfo;
}

/** Registry of 2025-era transport sessions plus the stateless fallback. */
export class LegacySessions {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly stateless: LegacyHttpHandler;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly build: () => Server,
    private readonly onerror: (err: Error) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.stateless = legacyStatelessFallback(() => build(), onerror);
    this.sweeper = setInterval(() => this.sweep(), LegacySessionConstants.SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Number of open transport sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Serves one 2025-era HTTP request. */
  async handle(r: LegacyRequest): Promise<Response> {
    const sid = r.request.headers.get('mcp-session-id');
    const opts = { authInfo: r.authInfo, ...(r.parsedBody !== undefined && { parsedBody: r.parsedBody }) };
    if (sid !== null) {
      const s = this.sessions.get(sid);
      if (s === undefined || s.principal !== r.principal.name) return notFound();
      s.lastUsedMs = this.now();
      return s.transport.handleRequest(r.request, opts);
    }
    if (r.request.method === 'POST' && isInitializeRequest(r.parsedBody)) return this.open(r, opts);
    return this.stateless(r.request, opts);
  }

  private async open(r: LegacyRequest, opts: { authInfo: AuthInfo; parsedBody?: unknown }): Promise<Response> {
    if (this.sessions.size >= LegacySessionConstants.MAX_SESSIONS) this.evictLeastRecentlyUsed();
    const principal = r.principal.name;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(LegacySessionConstants.EVENT_STORE_MAX_EVENTS, LegacySessionConstants.EVENT_STORE_MAX_BYTES),
      retryInterval: LegacySessionConstants.SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, principal, lastUsedMs: this.now() });
      },
      onsessionclosed: (id) => {
        this.forget(id);
      },
    });
    transport.onerror = (err) => this.onerror(err);
    const server = this.build();
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(r.request, opts);
  }

  private forget(id: string): void {
    const s = this.sessions.get(id);
    if (s === undefined) return;
    this.sessions.delete(id);
    void s.server.close().catch(() => undefined);
  }

  private evictLeastRecentlyUsed(): void {
    let oldest: [string, LegacySession] | undefined;
    for (const e of this.sessions) if (oldest === undefined || e[1].lastUsedMs < oldest[1].lastUsedMs) oldest = e;
    if (oldest !== undefined) this.close(oldest[0]);
  }

  private sweep(): void {
    const limit = this.now() - LegacySessionConstants.IDLE_MS;
    for (const [id, s] of [...this.sessions]) if (s.lastUsedMs < limit) this.close(id);
  }

  private close(id: string): void {
    const s = this.sessions.get(id);
    if (s === undefined) return;
    this.sessions.delete(id);
    void s.transport.close().catch(() => undefined);
    void s.server.close().catch(() => undefined);
  }

  /**
   * Closes the transport sessions of principals whose OAuth client was revoked (`holdfast oauth
   * revoke`; each OAuth client is a principal of its own): their streams end, and their next
   * request gets 401 (the revoked token) or 404 (a token of a new approval). Returns how many.
   */
  closePrincipals(principals: readonly string[]): number {
    let closed = 0;
    for (const [id, s] of [...this.sessions]) {
      if (principals.includes(s.principal)) {
        this.close(id);
        closed++;
      }
    }
    return closed;
  }

  /** Closes every transport session (their clients re-initialize against the next adapter). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.close(id);
  }
}

function notFound(): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found: initialize a new session' }, id: null }, { status: 404 });
}
