import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthBackend } from './backend.js';
import { cimdFetch, cimdFetchRefusal } from './cimd-guard.js';
import { errorPage } from './pages.js';
import { OAuthLifetimes, OAuthRoutes, type OAuthSettings } from './settings.js';
import { DaemonStorageAdapter } from './storage-adapter.js';

/** The one account of this authorization server: the machine's owner. */
export const OWNER_ACCOUNT = 'owner';
/** Access-token claim carrying the grant id, so the resource server can tell a revoked grant. */
export const GRANT_CLAIM = 'gid';
/** The JWS algorithm of access tokens. */
export const ACCESS_TOKEN_ALG = 'RS256';

/** Compares resource indicators as MCP asks (case-insensitive scheme and host, no trailing slash). */
export function sameResource(a: string, b: string): boolean {
  const norm = (v: string): string | null => {
    try {
      const u = new URL(v);
      if (u.hash || u.search) return null;
      return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, '')}`;
    } catch {
      return null;
    }
  };
  const x = norm(a);
  return x !== null && x === norm(b);
}

/**
 * holdfast's authorization server (issue 14, docs/oauth.md): oidc-provider (pinned) configured
 * for MCP — authorization code with PKCE S256 only (no `plain`, no request without a challenge),
 * RFC 8707 `resource` (the MCP URL when absent; any other resource is `invalid_target`), RFC 9207
 * `iss` on every authorization response, RFC 7591 dynamic registration, client ID metadata
 * documents (draft-02, SSRF-guarded), JWT access tokens (RFC 9068 `at+jwt`, RS256, audience =
 * the MCP URL, `access_token_ttl_s`), refresh tokens rotated on every use (a reused one revokes the
 * whole grant), revocation (RFC 7009). Redirect URIs must match a registered one exactly, loopback
 * ports included. No OpenID userinfo, logout, PAR, DPoP, device or client-credentials endpoints.
 *
 * @param keys private JWKs from the daemon, the signing key first.
 */
export function createProvider(settings: OAuthSettings, keys: readonly Record<string, unknown>[], cookieKeys: readonly string[], backend: OAuthBackend, log: (line: string) => void): Provider {
  const resourceServer = {
    scope: settings.scope,
    audience: settings.resource,
    accessTokenTTL: settings.accessTokenTtlS,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
  };
  const config: Configuration = {
    adapter: (name: string) => new DaemonStorageAdapter(name, backend),
    jwks: { keys: keys as never },
    cookies: {
      keys: [...cookieKeys],
      names: { session: 'hf_oauth_session', interaction: 'hf_oauth_interaction', resume: 'hf_oauth_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: ACCESS_TOKEN_ALG },
    responseTypes: ['code'],
    scopes: [settings.scope, 'offline_access'],
    claims: { openid: ['sub'] },
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    expiresWithSession: () => false,
    rotateRefreshToken: true,
    issueRefreshToken: (_ctx, client) => Promise.resolve(client.grantTypeAllowed('refresh_token')),
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    extraTokenClaims: (_ctx, token) => Promise.resolve('grantId' in token && typeof token.grantId === 'string' ? { [GRANT_CLAIM]: token.grantId } : undefined),
    interactions: { url: (_ctx, interaction) => `${OAuthRoutes.consentPrefix}${interaction.uid}` },
    routes: {
      authorization: OAuthRoutes.authorization,
      token: OAuthRoutes.token,
      registration: OAuthRoutes.registration,
      revocation: OAuthRoutes.revocation,
      jwks: OAuthRoutes.jwks,
    },
    ttl: {
      AccessToken: settings.accessTokenTtlS,
      AuthorizationCode: OAuthLifetimes.AUTHORIZATION_CODE_S,
      Grant: OAuthLifetimes.GRANT_S,
      IdToken: OAuthLifetimes.ID_TOKEN_S,
      Interaction: OAuthLifetimes.INTERACTION_S,
      RefreshToken: settings.refreshTokenTtlS,
      Session: OAuthLifetimes.SESSION_S,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // Sender-constrained (DPoP) tokens would need DPoP proofs at /mcp too; bearer JWTs only.
      dPoP: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowFetch: async (_ctx: KoaContextWithOIDC, clientId: string) => {
          const refusal = await cimdFetchRefusal(clientId, settings.allowPrivateCimd);
          if (refusal !== null) log(`oauth: not fetching client metadata document ${clientId}: ${refusal}`);
          return refusal === null;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => Promise.resolve(oneOf ? (oneOf.find((r) => sameResource(r, settings.resource)) ?? oneOf[0]!) : settings.resource),
        useGrantedResource: () => Promise.resolve(true),
        getResourceServerInfo: (_ctx, indicator) => {
          if (!sameResource(indicator, settings.resource)) throw new errors.InvalidTarget(`this server issues tokens for ${settings.resource} only`);
          return Promise.resolve(resourceServer);
        },
      },
    } as Configuration['features'],
    discovery: { client_id_metadata_document_supported: true },
    fetch: cimdFetch(settings.allowPrivateCimd) as Configuration['fetch'],
    renderError: (ctx, out) => {
      const page = errorPage(out as unknown as Record<string, unknown>);
      ctx.status = ctx.status >= 400 ? ctx.status : 400;
      for (const [k, v] of Object.entries(page.headers)) ctx.set(k, v);
      ctx.type = 'html';
      ctx.body = page.body;
    },
  };
  const provider = new Provider(settings.issuer, config);
  // Pinned to server_url, the scheme and host are set by OAuthFront.handle; else from the proxy when trusted.
  provider.proxy = settings.pinOrigin || settings.trustProxyHeaders;
  // Exact redirect URI matching (OAuth 2.1 §4.1.3): no loopback port variation (RFC 8252 §7.3 allows it; we do not).
  const proto = provider.Client.prototype as unknown as { redirectUriAllowed(value: string): boolean; redirectUris: string[] };
  proto.redirectUriAllowed = function redirectUriAllowed(this: { redirectUris: string[] }, value: string): boolean {
    return this.redirectUris.includes(value);
  };
  provider.on('server_error', (_ctx: unknown, err: Error) => log(`oauth: server error: ${err.stack ?? err.message}`));
  return provider;
}
