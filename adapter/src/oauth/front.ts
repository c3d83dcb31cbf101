import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { OAuthBackend } from './backend.js';
import { ConsentHandler } from './consent.js';
import { createProvider } from './provider.js';
import { ResourceServer, type ResourceOutcome } from './resource-server.js';
import { OAuthRoutes, type OAuthSettings } from './settings.js';

/** OAuth principals (`oauth:…`) whose client or grant was just revoked (`holdfast oauth revoke`). */
export interface OAuthRevocation {
  principals: string[];
}

/** After a token names an unknown key, keys are re-read at most this often, ms. */
const KEY_REFRESH_MIN_INTERVAL_MS = 10_000;

const PRM_ROOT = '/.well-known/oauth-protected-resource';
const AS_METADATA = '/.well-known/oauth-authorization-server';
const OIDC_METADATA = '/.well-known/openid-configuration';

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/**
 * The OAuth face of one adapter (issue 14, docs/oauth.md): the authorization server
 * (oidc-provider under `/oauth/…`, metadata under `/.well-known/…`), the owner's consent page,
 * RFC 9728 protected-resource metadata, and the resource-server check of `/mcp`. Holds nothing
 * that must survive it: storage, keys and approvals are the daemon's; when the daemon announces a
 * key rotation the provider is rebuilt with the new keys.
 */
export class OAuthFront {
  private provider: Provider;
  private handler: ReturnType<Provider['callback']>;
  private readonly consent: ConsentHandler;
  readonly resourceServer: ResourceServer;
  private lastKeyRefresh = 0;

  private constructor(
    readonly settings: OAuthSettings,
    private readonly backend: OAuthBackend,
    private readonly log: (line: string) => void,
    keys: { keys: Record<string, unknown>[]; cookie_keys: string[] },
  ) {
    this.provider = createProvider(settings, keys.keys, keys.cookie_keys, backend, log);
    this.handler = this.provider.callback();
    this.consent = new ConsentHandler(() => this.provider, settings, backend, log);
    this.resourceServer = new ResourceServer(settings, keys.keys, backend, () => this.refreshKeys());
  }

  /** Loads the signing keys from the daemon and builds the front. */
  static async start(settings: OAuthSettings, backend: OAuthBackend, log: (line: string) => void): Promise<OAuthFront> {
    return new OAuthFront(settings, backend, log, await backend.call('oauth.keys', {}));
  }

  /** True for the paths this front answers (everything else is `/mcp` or 404). */
  serves(path: string): boolean {
    return path.startsWith('/oauth/') || path === AS_METADATA || path === OIDC_METADATA || path === PRM_ROOT || path === new URL(this.resourceServer.metadataUrl).pathname;
  }

  /**
   * True for the paths a browser reaches as a page (the consent form): those get the same
   * `Origin` check as `/mcp`. Metadata, token, registration and revocation endpoints are called
   * cross-origin by browser-based clients on purpose.
   */
  isPage(path: string): boolean {
    return path.startsWith(OAuthRoutes.consentPrefix);
  }

  /** Listeners of revocations (the HTTP layer closes the transport sessions of revoked tokens). */
  private readonly revocationListeners: ((r: OAuthRevocation) => void)[] = [];

  /** Calls `fn` with every revocation the daemon announces. */
  onRevocation(fn: (r: OAuthRevocation) => void): void {
    this.revocationListeners.push(fn);
  }

  /**
   * The daemon announced a change: reload keys (and rebuild the provider) or forget cached
   * approvals; a revocation also goes to the {@link onRevocation} listeners.
   */
  async onChange(change: { keys?: boolean; revoked?: OAuthRevocation }): Promise<void> {
    this.resourceServer.flush();
    if (change.revoked) for (const fn of this.revocationListeners) fn(change.revoked);
    if (change.keys) await this.refreshKeys(true);
  }

  /** The resource-server check of a request to `/mcp`. */
  authenticate(authorization: string | undefined): Promise<ResourceOutcome> {
    return this.resourceServer.authenticate(authorization);
  }

  /** Serves one request to an OAuth path; `source` is the client address. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, search: string, source: string): Promise<void> {
    if (path === PRM_ROOT || path === new URL(this.resourceServer.metadataUrl).pathname) {
      req.resume();
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' });
        res.end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'invalid_request', error_description: 'use GET' }, { allow: 'GET, HEAD, OPTIONS' });
      return sendJson(res, 200, this.resourceServer.metadata(), { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=300' });
    }
    if (path.startsWith(OAuthRoutes.consentPrefix)) {
      const uid = path.slice(OAuthRoutes.consentPrefix.length);
      return this.consent.handle(req, res, uid, source);
    }
    this.pinRequest(req);
    if (path === AS_METADATA) {
      // RFC 8414 metadata is the same document as oidc-provider's OpenID discovery one.
      req.url = `${OIDC_METADATA}${search}`;
    } else if (path === OAuthRoutes.authorization && req.method === 'GET') {
      req.url = `${path}${withDefaultScope(search, this.settings.scope)}`;
    }
    await this.handler(req, res);
  }

  /**
   * What oidc-provider reads the request's scheme and host from: with a configured server_url,
   * that origin (URLs it builds — the resume step of an authorization, its cookies' `Secure` —
   * must match the issuer even when the proxy forwards `Host: 127.0.0.1`); the client address
   * only from a trusted proxy.
   */
  private pinRequest(req: IncomingMessage): void {
    if (this.settings.pinOrigin) {
      const u = new URL(this.settings.issuer);
      req.headers['x-forwarded-proto'] = u.protocol.slice(0, -1);
      req.headers['x-forwarded-host'] = u.host;
    }
    if (!this.settings.trustProxyHeaders) delete req.headers['x-forwarded-for'];
  }

  private async refreshKeys(force = false): Promise<boolean> {
    const now = Date.now();
    if (!force && now - this.lastKeyRefresh < KEY_REFRESH_MIN_INTERVAL_MS) return false;
    this.lastKeyRefresh = now;
    const keys = await this.backend.call('oauth.keys', {});
    this.provider = createProvider(this.settings, keys.keys, keys.cookie_keys, this.backend, this.log);
    this.handler = this.provider.callback();
    this.resourceServer.setKeys(keys.keys);
    this.log(`oauth: signing keys reloaded (${keys.keys.length})`);
    return true;
  }
}

/**
 * An authorization request without `scope` gets the MCP scope (ChatGPT has been seen omitting it
 * on reconnect; oidc-provider would answer `access_denied` to an empty request).
 */
export function withDefaultScope(search: string, scope: string): string {
  const params = new URLSearchParams(search);
  if ((params.get('scope') ?? '').trim() !== '') return search;
  params.set('scope', scope);
  return `?${params.toString()}`;
}
