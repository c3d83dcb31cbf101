import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { HoldfastError, PanelLimits, type PanelStatus, type PanelTicket } from '@holdfast/shared/protocol';
import { WebSocketServer, type WebSocket } from 'ws';
import { log } from '../../log.js';
import type { DesktopSession } from '../desktop-session.js';
import type { ViewStore } from '../views.js';
import type { PanelAssets } from './assets.js';
import { BrowserLauncher, type LaunchResult } from './browser-launch.js';
import { LoopbackAuth, originProblem, securityHeaders, type BrowserSession } from './loopback-auth.js';
import { PanelApi, type ApiReply } from './panel-api.js';
import { TicketBook, type TicketClaims } from './tickets.js';
import { VideoViewer, ViewerClose } from './video-viewer.js';
import type { DaemonLink } from './daemon-link.js';

/** What the panel needs from its driver. */
export interface PanelHost {
  views: ViewStore;
  /** A desktop session of this driver. @throws HoldfastError `DESKTOP_NOT_FOUND`. */
  session(id: string): DesktopSession;
}

/** Cookie of a panel's browser session. */
const COOKIE = 'hf_panel';
const VIEW_PATH = /^\/view\/(view_[A-Za-z0-9]{1,64})$/;

/**
 * The desktop panel's loopback server (issue 16 §1–§4), owned by the session's desktop driver so
 * it survives adapter and daemon restarts. HTTP and the video WebSocket on `127.0.0.1` and a port
 * the kernel picks; never any other address.
 *
 * - `GET /view/<view_id>`, `/assets/panel.js|css`: the page (exact Host; CSP without external
 *   sources; no framing). Without a browser session the page shows nothing but how to pair.
 * - `POST /api/session {secret}`: the fragment secret → HttpOnly SameSite=Strict cookie + CSRF
 *   token (loopback-auth.ts). Every other `/api/*` needs the cookie; POSTs also the exact Origin,
 *   `Content-Type: application/json` and `X-CSRF-Token` (panel-api.ts has the actions).
 * - `GET /ws` (upgrade): the first message must be a ticket (tickets.ts) within
 *   {@link PanelLimits.TICKET_FIRST_MESSAGE_MS}; then frames (video-viewer.ts). A page ticket needs
 *   the exact Origin and the browser session it was made for; a terminal ticket no Origin or the
 *   exact one; an MCP Apps ticket comes from the client's sandbox origin. At most
 *   {@link PanelLimits.MAX_VIEWERS_PER_SESSION} per desktop session.
 */
export class PanelServer {
  private server: Server | null = null;
  private starting: Promise<number> | null = null;
  private listenPort = 0;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private readonly auth = new LoopbackAuth({
    bootstrapTtlMs: PanelLimits.BOOTSTRAP_TTL_MS,
    sessionMaxMs: PanelLimits.BROWSER_SESSION_MAX_MS,
    maxSessions: PanelLimits.MAX_BROWSER_SESSIONS,
    cookieName: COOKIE,
  });
  private readonly tickets = new TicketBook(PanelLimits.TICKET_TTL_MS);
  private readonly viewers = new Set<VideoViewer>();
  private readonly launcher: BrowserLauncher;
  private readonly api: PanelApi;

  constructor(
    private readonly host: PanelHost,
    private readonly assets: PanelAssets,
    readonly daemon: DaemonLink,
    launcherDir: string,
  ) {
    this.launcher = new BrowserLauncher(launcherDir, PanelLimits.BOOTSTRAP_TTL_MS);
    this.api = new PanelApi(host, daemon, (viewId, s) => this.pageTicket(viewId, s));
  }

  /** The port, or 0 before {@link start}. */
  get port(): number {
    return this.listenPort;
  }

  /** Starts listening (once); resolves the port. */
  start(): Promise<number> {
    if (this.server) return Promise.resolve(this.listenPort);
    this.starting ??= new Promise<number>((resolve, reject) => {
      const server = createServer((req, res) => void this.onRequest(req, res));
      server.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0 }, () => {
        this.server = server;
        this.listenPort = (server.address() as { port: number }).port;
        log(`panel listening on http://127.0.0.1:${this.listenPort}`);
        resolve(this.listenPort);
      });
    }).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  /** The page of a view, without any secret. */
  viewUrl(viewId: string): string {
    return `http://127.0.0.1:${this.listenPort}/view/${viewId}`;
  }

  /** The page of a view with a fresh one-time bootstrap secret in its fragment (for the person only). */
  async link(viewId: string): Promise<{ url: string; expires_at: number }> {
    await this.start();
    this.host.views.get(viewId);
    const { secret, expiresAt } = this.auth.mintSecret();
    return { url: `${this.viewUrl(viewId)}#s=${secret}`, expires_at: expiresAt };
  }

  /** Opens the view's page (with a fresh secret) in the person's browser. */
  async openBrowser(viewId: string, command: string[]): Promise<LaunchResult> {
    const { url } = await this.link(viewId);
    return this.launcher.open(url, command);
  }

  /**
   * A one-time video ticket for the terminal viewer or an MCP Apps view of `viewId`.
   * @throws HoldfastError `DESKTOP_NOT_FOUND` (view unknown), `BAD_REQUEST` (no desktop connected for it yet).
   */
  async ticket(viewId: string, kind: 'terminal' | 'app'): Promise<PanelTicket> {
    await this.start();
    return this.mint(viewId, kind, null);
  }

  /** Numbers for `d.status`. */
  status(): PanelStatus | null {
    if (!this.server) return null;
    return { port: this.listenPort, browser_sessions: this.auth.sessionCount, viewers: [...this.viewers].map((v) => v.status()) };
  }

  /** Closes the server, every socket and launcher file (the driver is ending). */
  async close(): Promise<void> {
    this.launcher.removeAll();
    for (const v of [...this.viewers]) v.close(1001, 'the desktop driver is ending');
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void => {
      res.writeHead(status, { ...securityHeaders(this.listenPort), 'Content-Type': type, ...extra });
      res.end(body);
    };
    const json = (r: ApiReply, extra: Record<string, string> = {}): void => send(r.status, JSON.stringify(r.body), 'application/json; charset=utf-8', extra);
    try {
      if (req.method === 'GET' || req.method === 'HEAD') {
        // The page itself holds nothing secret: any navigation may load it (the exact Host still
        // stops DNS rebinding); the data behind it needs the cookie and a same-origin request.
        const bad = originProblem(req, this.listenPort, url.pathname.startsWith('/api/') ? 'if-present' : 'any');
        if (bad) return json({ status: 403, body: { error: { code: 'FORBIDDEN', message: bad } } });
        if (VIEW_PATH.test(url.pathname)) return send(200, this.assets.html, 'text/html; charset=utf-8');
        if (url.pathname === '/assets/panel.js') return send(200, this.assets.js, 'text/javascript; charset=utf-8');
        if (url.pathname === '/assets/panel.css') return send(200, this.assets.css, 'text/css; charset=utf-8');
        if (url.pathname === '/api/state') {
          const s = this.auth.session(req);
          if (!s) return json(notPaired());
          return json(await this.api.state(url.searchParams.get('view') ?? ''));
        }
        return json({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'no such page' } } });
      }
      if (req.method !== 'POST' || !url.pathname.startsWith('/api/')) return json({ status: 405, body: { error: { code: 'METHOD_NOT_ALLOWED', message: 'GET pages, POST /api/*' } } });
      const bad = originProblem(req, this.listenPort, 'required');
      if (bad) return json({ status: 403, body: { error: { code: 'FORBIDDEN', message: bad } } });
      if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return json({ status: 415, body: { error: { code: 'BAD_REQUEST', message: 'send application/json' } } });
      const body = await readJson(req);
      if (url.pathname === '/api/session') {
        const ex = this.auth.exchange((body as { secret?: unknown }).secret);
        if (!ex) return json({ status: 401, body: { error: { code: 'NOT_PAIRED', message: 'this link was already used or is older than 60 s; run `holdfast desktop pair <view_id>` in your terminal for a new one' } } });
        log(`panel: browser session ${ex.session.id} paired`);
        return json({ status: 200, body: { csrf: ex.session.csrf, expires_at: ex.session.expiresAt } }, { 'Set-Cookie': ex.setCookie });
      }
      const s = this.auth.session(req);
      if (!s) return json(notPaired());
      if (!this.auth.csrfMatches(s, req.headers['x-csrf-token'])) return json({ status: 403, body: { error: { code: 'FORBIDDEN', message: 'missing or wrong X-CSRF-Token' } } });
      return json(await this.api.post(url.pathname.slice('/api/'.length), body, s));
    } catch (err) {
      if (err instanceof BodyError) return json({ status: err.status, body: { error: { code: 'BAD_REQUEST', message: err.message } } });
      log('panel: request failed', err);
      return json({ status: 500, body: { error: { code: 'INTERNAL', message: (err as Error).message } } });
    }
  }

  // ---- video ---------------------------------------------------------------------------------

  private pageTicket(viewId: string, s: BrowserSession): PanelTicket {
    return this.mint(viewId, 'page', s.id);
  }

  private mint(viewId: string, kind: TicketClaims['kind'], browserSession: string | null): PanelTicket {
    const view = this.host.views.get(viewId);
    if (!view.desktop_session_id) throw new HoldfastError('BAD_REQUEST', `view ${viewId} has no desktop connected yet`, { retryable: true });
    const session = this.host.session(view.desktop_session_id);
    if (!session.isOpen) throw new HoldfastError('DESKTOP_NOT_FOUND', `desktop session ${session.id} is closed`, { retryable: false });
    const generation = session.currentGeneration;
    const { ticket, expiresAt } = this.tickets.mint({ viewId, desktopSessionId: session.id, generation, kind, browserSession });
    return { ws_url: `ws://127.0.0.1:${this.listenPort}/ws`, ticket, expires_at: expiresAt, view_id: viewId, desktop_session_id: session.id, generation };
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // Any Origin may knock (an MCP Apps view lives in the client's sandbox origin); which one may
    // stay is decided by the ticket below.
    const bad = url.pathname !== '/ws' ? 'no such socket' : originProblem(req, this.listenPort, 'any');
    if (bad) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${bad}\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws, req));
  }

  private onSocket(ws: WebSocket, req: IncomingMessage): void {
    const timer = setTimeout(() => ws.close(ViewerClose.BAD_TICKET, 'send a ticket first'), PanelLimits.TICKET_FIRST_MESSAGE_MS);
    ws.once('message', (data, isBinary) => {
      clearTimeout(timer);
      let ticket: unknown;
      try {
        ticket = isBinary ? undefined : (JSON.parse(data.toString()) as { ticket?: unknown }).ticket;
      } catch {
        ticket = undefined;
      }
      const claims = this.tickets.redeem(ticket);
      const refusal = claims ? this.ticketProblem(claims, req) : 'no valid ticket';
      if (refusal || !claims) {
        ws.close(ViewerClose.BAD_TICKET, refusal ?? 'no valid ticket');
        return;
      }
      let session: DesktopSession;
      try {
        session = this.host.session(claims.desktopSessionId);
      } catch {
        ws.close(ViewerClose.SESSION_CLOSED, 'the desktop session is gone');
        return;
      }
      if (!session.isOpen) return void ws.close(ViewerClose.SESSION_CLOSED, 'the desktop session closed');
      if (session.currentGeneration !== claims.generation) return void ws.close(ViewerClose.GENERATION_CHANGED, 'the desktop reconnected; ask for a new ticket');
      const watching = [...this.viewers].filter((v) => v.session === session).length;
      if (watching >= PanelLimits.MAX_VIEWERS_PER_SESSION) return void ws.close(ViewerClose.TOO_MANY_VIEWERS, `at most ${PanelLimits.MAX_VIEWERS_PER_SESSION} viewers per desktop`);
      const viewer = new VideoViewer(ws, session, { kind: claims.kind, generation: claims.generation }, (v) => this.viewers.delete(v));
      this.viewers.add(viewer);
      viewer.start();
    });
    ws.on('error', () => undefined);
    ws.once('close', () => clearTimeout(timer));
  }

  /** Why a redeemed ticket may not be used on this request, or null. */
  private ticketProblem(c: TicketClaims, req: IncomingMessage): string | null {
    const own = `http://127.0.0.1:${this.listenPort}`;
    const origin = req.headers.origin;
    if (c.kind === 'page') {
      if (origin !== own) return 'a page ticket needs the page origin';
      const s = this.auth.session(req);
      if (!s || s.id !== c.browserSession) return 'a page ticket needs the browser session it was made for';
    }
    if (c.kind === 'terminal' && origin !== undefined && origin !== own) return 'a terminal ticket from a web page';
    return null;
  }
}

function notPaired(): ApiReply {
  return { status: 401, body: { error: { code: 'NOT_PAIRED', message: 'this browser is not paired: open the link that holdfast opened for you, or run `holdfast desktop pair <view_id>` in your terminal' } } };
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads a JSON body of at most {@link PanelLimits.MAX_BODY_BYTES}. */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > PanelLimits.MAX_BODY_BYTES) throw new BodyError(413, `the body is larger than ${PanelLimits.MAX_BODY_BYTES} bytes`);
    chunks.push(c);
  }
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch {
    throw new BodyError(400, 'the body must be a JSON object');
  }
}
