import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import { AuthConstants, HttpConstants, ReadDeadlines } from './constants.js';
import type { OAuthBackend } from '../oauth/backend.js';
import type { OAuthFront } from '../oauth/front.js';
import type { OAuthSettings } from '../oauth/settings.js';
import { HostOriginGuard, requestPath } from './host-origin.js';
import { LegacySessions } from './legacy-sessions.js';
import { batchRefusal, BodyBudget, bodyBehindDeadline, ConcurrencyGate, RateLimiter, rateBucket } from './limits.js';
import { readBody, rpcErrorBody, sendJson, toWebRequest, writeWebResponse } from './node-bridge.js';
import type { Principal } from './principals.js';
import { clientAddress, requestAuthenticator, type AuthMode } from './request-auth.js';
import { buildServer, httpPrincipal, type ServerDeps } from './server-factory.js';

/** UTF-8 with the BOM removed, as the Fetch standard decodes a JSON body. */
const UTF8 = new TextDecoder('utf-8');

/**
 * The Streamable HTTP endpoint `/mcp` (DESIGN §6.1, §6.2). Every request passes, in order:
 * Host/Origin (403) → path (404) → method (405) → bearer auth (401, answered after ≥ 100 ms;
 * failures are rate-limited in a bucket of their own per source address → 429) → rate per
 * principal and source address (429) → concurrency (503) → body size (413) and the in-flight
 * body budget (503) → MCP dispatch under the request timeout (408). Dispatch routes by protocol era: 2026-07-28 requests to the SDK's
 * stateless per-request handler (`legacy: 'reject'`), 2025-era requests to transport sessions
 * or the stateless fallback ({@link LegacySessions}).
 */
export interface HttpServeConfig {
  host: string;
  port: number;
  /** Extra hostnames accepted in `Host`/`Origin` besides the loopback names. */
  allowedHosts: readonly string[];
  /**
   * `open`: everyone is `openPrincipal` (loopback only); `bearer`: a static token is required;
   * `oauth`: an access token of holdfast's authorization server; `dual`: either (issue 14).
   */
  auth: AuthMode;
  /** The authorization server and resource-server settings (modes `oauth` and `dual`). */
  oauth?: OAuthServeOptions | null;
  maxBodyBytes: number;
  requestTimeoutMs: number;
  maxConcurrency: number;
  requestsPerMinute: number;
  /** Request-body bytes held in memory at once across all requests (else 503). */
  maxInflightBodyBytes: number;
}

/**
 * OAuth settings before the listen address is known: without `serverUrl` the issuer is the
 * loopback URL the server ends up listening on (`http://127.0.0.1:PORT`).
 */
export type OAuthServeOptions = Omit<OAuthSettings, 'issuer' | 'resource' | 'pinOrigin'> & { serverUrl: string | null };

/** A listening MCP HTTP server. */
export interface RunningHttpServer {
  /** `http://host:port/mcp`. */
  url: string;
  port: number;
  /** Stops accepting, closes transport sessions and open connections. */
  close(): Promise<void>;
}

/** Where the server writes diagnostic lines (stderr in `serve`); never request data or tokens. */
export type LogFn = (line: string) => void;

const ALLOWED_METHODS = 'GET, POST, DELETE';

function timeoutReason(ms: number): Error {
  const e = new Error(`request timed out after ${ms} ms`);
  e.name = 'TimeoutError';
  return e;
}

/**
 * Starts the HTTP server. In modes `oauth` and `dual` it also serves holdfast's authorization
 * server under `/oauth/` and `/.well-known/` (issue 14; after the Host check, in the source's
 * unauthenticated rate bucket), backed by `oauthDeps.backend` (the daemon), and hands the front to
 * `oauthDeps.onFront` (so daemon events reach it).
 */
export async function startHttpServer(
  cfg: HttpServeConfig,
  deps: ServerDeps,
  log: LogFn,
  oauthDeps?: { backend: OAuthBackend; onFront?: (front: OAuthFront) => void },
): Promise<RunningHttpServer> {
  const guard = new HostOriginGuard(cfg.allowedHosts);
  const rate = new RateLimiter(cfg.requestsPerMinute);
  const gate = new ConcurrencyGate(cfg.maxConcurrency);
  const bodies = new BodyBudget(cfg.maxInflightBodyBytes);
  const trustProxy = cfg.oauth?.trustProxyHeaders ?? false;
  // Set once listening (the issuer may be the listen address); requests wait for it.
  let frontReady!: (front: OAuthFront | null) => void;
  const oauthFront = new Promise<OAuthFront | null>((resolve) => (frontReady = resolve));
  let authenticator: ReturnType<typeof requestAuthenticator> = null;
  const onerror = (err: Error): void => log(`mcp: ${err.message}`);
  const modern: McpHttpHandler = createMcpHandler(() => buildServer(deps, 'modern', httpPrincipal), { legacy: 'reject', onerror, maxRequestBodySize: cfg.maxBodyBytes });
  const legacy = new LegacySessions(() => buildServer(deps, 'legacy', httpPrincipal), onerror);

  async function dispatch(req: IncomingMessage, res: ServerResponse, principal: Principal, path: string, search: string): Promise<void> {
    const body = req.method === 'POST' ? await readJsonBody(req, res) : { held: 0 };
    if (body === null) return;
    const batch = batchRefusal(body.parsedBody);
    if (batch !== null) {
      bodies.give(body.held);
      return sendJson(res, 400, rpcErrorBody(batch, -32600));
    }
    try {
      await dispatchParsed(req, res, principal, path, search, body.rawBody, body.parsedBody);
    } finally {
      bodies.give(body.held);
    }
  }

  /**
   * Reads and parses a POST body under the size limit (413) and the in-flight body budget (503);
   * null when a refusal was sent. The raw bytes and text are not kept once parsed; `held` bytes of
   * the budget stay taken until the request is answered.
   */
  async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<{ rawBody?: string; parsedBody?: unknown; held: number } | null> {
    const body = await readBody(req, cfg.maxBodyBytes, bodies, { intervalMs: ReadDeadlines.BODY_CHECK_INTERVAL_MS, behind: bodyBehindDeadline });
    if (!body.ok) {
      if (body.reason === 'too_slow') {
        sendJson(res, 408, rpcErrorBody(`Request Timeout: the request body arrived slower than ${ReadDeadlines.BODY_MIN_BYTES_PER_S} bytes/s after ${ReadDeadlines.BODY_GRACE_MS} ms`), { connection: 'close' });
        req.socket.destroySoon();
        return null;
      }
      if (body.reason === 'too_large') {
        sendJson(res, 413, rpcErrorBody(`Payload Too Large: the request body exceeds ${cfg.maxBodyBytes} bytes`), { connection: 'close' });
        req.resume();
      } else if (body.reason === 'busy') {
        sendJson(res, 503, rpcErrorBody(`Service Unavailable: request bodies in flight already hold up to ${cfg.maxInflightBodyBytes} bytes`), { 'retry-after': '1', connection: 'close' });
        req.resume();
      }
      return null;
    }
    // Decoded as the SDK's fetch-style `request.json()` would (WHATWG "UTF-8 decode" drops one
    // leading BOM): what the limits judge (a batch!) is exactly what the SDK would parse. A plain
    // `toString` kept the BOM, JSON.parse failed, and the raw text went on to the SDK, which read
    // the batch past the BOM (docs/http-security.md, "Batches").
    const text = UTF8.decode(body.body);
    try {
      return { parsedBody: JSON.parse(text) as unknown, held: body.held };
    } catch {
      return { rawBody: text, held: body.held };
    }
  }

  async function dispatchParsed(req: IncomingMessage, res: ServerResponse, principal: Principal, path: string, search: string, rawBody: string | undefined, parsedBody: unknown): Promise<void> {
    // Aborted on timeout, and on client disconnect unless the answer can still be fetched later.
    const ac = new AbortController();
    let cancelOnDisconnect = true;
    const onClose = (): void => {
      if (!res.writableFinished && cancelOnDisconnect) ac.abort(new Error('client disconnected'));
    };
    res.once('close', onClose);
    const request = toWebRequest(req, `http://${req.headers.host ?? 'localhost'}${path}${search}`, rawBody, ac.signal);
    const authInfo: AuthInfo = { token: '', clientId: principal.name, scopes: [], extra: { principal } };
    // GET opens a long-lived event stream: no request timeout for it.
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    if (req.method !== 'GET') {
      timer = setTimeout(() => {
        timedOut = true;
        ac.abort(timeoutReason(cfg.requestTimeoutMs));
        if (!res.headersSent) {
          const id = parsedBody && typeof parsedBody === 'object' && 'id' in parsedBody ? (parsedBody as { id: unknown }).id : null;
          sendJson(res, 408, { jsonrpc: '2.0', error: { code: -32000, message: `Request Timeout: no answer within ${cfg.requestTimeoutMs} ms` }, id: id ?? null });
        } else {
          // Streaming already: tool handlers see the abort and finish with a TIMEOUT result; cut the stream if it lingers.
          setTimeout(() => res.destroy(), HttpConstants.TIMEOUT_STREAM_GRACE_MS).unref();
        }
      }, cfg.requestTimeoutMs);
    }
    try {
      const isLegacy = await isLegacyRequest(request, parsedBody, { maxRequestBodySize: cfg.maxBodyBytes });
      // In a 2025-era transport session a dropped stream is not a cancellation (MCP 2025-11-25):
      // the answer is kept in the session's event store and replayed after Last-Event-ID.
      if (isLegacy && request.headers.has('mcp-session-id')) cancelOnDisconnect = false;
      const response = isLegacy
        ? await legacy.handle({ request, parsedBody, principal, authInfo })
        : await modern.fetch(request, { authInfo, ...(parsedBody !== undefined && { parsedBody }) });
      if (timedOut) {
        await response.body?.cancel().catch(() => undefined);
        return;
      }
      await writeWebResponse(res, response, ac.signal);
    } finally {
      if (timer) clearTimeout(timer);
      res.off('close', onClose);
    }
  }

  function deny401(res: ServerResponse, wwwAuthenticate: string, error: string, description: string): void {
    setTimeout(() => sendJson(res, 401, { error, error_description: description }, { 'www-authenticate': wwwAuthenticate }), AuthConstants.FAILURE_DELAY_MS);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = requestPath(req.url ?? '/', guard.allowed);
    if (!target.ok) return sendJson(res, target.status, rpcErrorBody(target.message), { connection: 'close' });
    const url = target.path;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? '' : url.slice(q);
    const front = path === HttpConstants.MCP_PATH ? null : await oauthFront;
    const oauthPath = front !== null && front.serves(path);
    const checked = guard.check(req.headers, { origin: !oauthPath || front.isPage(path) });
    if (!checked.ok) return sendJson(res, checked.status, rpcErrorBody(checked.message));
    const source = clientAddress(req, trustProxy);
    if (oauthPath) return serveOAuth(front, req, res, path, search, source);
    if (path !== HttpConstants.MCP_PATH) return sendJson(res, 404, rpcErrorBody(`Not Found: the MCP endpoint is ${HttpConstants.MCP_PATH}`));
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') {
      return sendJson(res, 405, rpcErrorBody(`Method Not Allowed: use ${ALLOWED_METHODS}`), { allow: ALLOWED_METHODS });
    }
    let principal: Principal;
    await oauthFront;
    if (authenticator === null) {
      principal = (cfg.auth as { principal: Principal }).principal;
    } else {
      const a = await authenticator.authenticate(req.headers, search);
      if (!a.ok) {
        req.resume();
        // Failed authentications have their own bucket: they throttle token guessing without
        // spending the budget of the principals that share this address (DESIGN §6.2).
        if (!rate.take(rateBucket(source, null))) return tooMany(res, 'failed authentications from this address');
        if (a.status === 403) return sendJson(res, 403, { error: a.error, error_description: a.description }, { 'www-authenticate': a.wwwAuthenticate });
        return deny401(res, a.wwwAuthenticate, a.error, a.description);
      }
      principal = a.principal;
    }
    if (!rate.take(rateBucket(source, principal.name))) return tooMany(res, `requests of principal "${principal.name}" from this address`);
    const release = method === 'GET' ? () => undefined : gate.tryEnter();
    if (release === null) {
      return sendJson(res, 503, rpcErrorBody(`Service Unavailable: ${cfg.maxConcurrency} requests already in flight`), { 'retry-after': '1' });
    }
    try {
      await dispatch(req, res, principal, path, search);
    } finally {
      release();
    }
  }

  /**
   * The authorization server's endpoints and metadata (issue 14): unauthenticated by nature, so
   * they count against the address's unauthenticated rate bucket (consent attempts included) and
   * the concurrency limit.
   */
  async function serveOAuth(front: OAuthFront, req: IncomingMessage, res: ServerResponse, path: string, search: string, source: string): Promise<void> {
    if (!rate.take(rateBucket(source, null))) {
      req.resume();
      return tooMany(res, 'unauthenticated requests from this address');
    }
    const release = gate.tryEnter();
    if (release === null) {
      req.resume();
      return sendJson(res, 503, rpcErrorBody(`Service Unavailable: ${cfg.maxConcurrency} requests already in flight`), { 'retry-after': '1' });
    }
    try {
      await front.handle(req, res, path, search, source);
    } finally {
      release();
    }
  }

  function tooMany(res: ServerResponse, what: string): void {
    sendJson(res, 429, rpcErrorBody(`Too Many Requests: more than ${cfg.requestsPerMinute} ${what} per minute`), { 'retry-after': '1' });
  }

  // Header deadline (issue 18): Node answers 408 and closes a connection whose request line and
  // headers take longer than this, checked every second instead of every 30 s.
  const server: NodeHttpServer = createServer({ connectionsCheckingInterval: ReadDeadlines.CONNECTIONS_CHECK_INTERVAL_MS, headersTimeout: ReadDeadlines.HEADERS_MS }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`http: ${(err as Error).stack ?? String(err)}`);
      if (!res.headersSent) sendJson(res, 500, rpcErrorBody('Internal Server Error'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new Error(`${cfg.host}:${cfg.port} is already in use (another holdfast serve, or another server); pick a free port with --bind ${cfg.host}:PORT`, { cause: err }));
      } else reject(err);
    });
    server.listen(cfg.port, cfg.host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const hostForUrl = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  let front: OAuthFront | null = null;
  try {
    if (cfg.oauth) {
      if (!oauthDeps) throw new Error(`auth mode ${cfg.auth.mode} needs the daemon (OAuth state lives there)`);
      const issuer = (cfg.oauth.serverUrl ?? `http://${hostForUrl}:${addr.port}`).replace(/\/+$/, '');
      const { serverUrl: _s, ...rest } = cfg.oauth;
      // Loaded only here: oidc-provider is not needed (nor its start-up notices printed) without OAuth.
      const { OAuthFront } = await import('../oauth/front.js');
      front = await OAuthFront.start({ ...rest, issuer, resource: `${issuer}${HttpConstants.MCP_PATH}`, pinOrigin: cfg.oauth.serverUrl !== null }, oauthDeps.backend, log);
      oauthDeps.onFront?.(front);
      // A revoked client's transport sessions end now: their GET streams close, and a request
      // naming one gets 404 (with a new token) or 401 (with the revoked one).
      front.onRevocation((r) => {
        const closed = legacy.closePrincipals(r.principals);
        if (closed > 0) log(`oauth: closed ${closed} MCP transport session${closed === 1 ? '' : 's'} of revoked ${r.principals.join(', ')}`);
      });
    }
    authenticator = requestAuthenticator(cfg.auth, front);
  } catch (err) {
    frontReady(null);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    throw err;
  }
  frontReady(front);
  return {
    url: `http://${hostForUrl}:${addr.port}${HttpConstants.MCP_PATH}`,
    port: addr.port,
    async close() {
      await legacy.closeAll();
      await modern.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
