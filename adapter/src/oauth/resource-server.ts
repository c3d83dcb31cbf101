import type { OAuthPrincipalView } from '@holdfast/shared/control';
import { bearerAuthChallengeResponse, getOAuthProtectedResourceMetadataUrl, OAuthError, OAuthErrorCode, verifyBearerToken, type AuthInfo, type OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWK } from 'jose';
import { makePrincipal, type Principal } from '../mcp/principals.js';
import type { OAuthBackend } from './backend.js';
import { ACCESS_TOKEN_ALG, GRANT_CLAIM } from './provider.js';
import type { OAuthSettings } from './settings.js';

/** A cached approval lookup lives this long, ms (changes are also pushed by the daemon). */
const PRINCIPAL_CACHE_MS = 30_000;
/** Approval lookups cached at most. */
const PRINCIPAL_CACHE_MAX = 1000;
/** Clock skew allowed on `exp`/`iat`, seconds. */
const CLOCK_TOLERANCE_S = 5;
/** Private members of an RSA JWK, dropped for the verification key set. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A resource-server verdict: the principal, or the HTTP refusal (401 `invalid_token`, 403 `insufficient_scope`). */
export type ResourceOutcome =
  | { ok: true; principal: Principal; authInfo: AuthInfo }
  | { ok: false; status: 401 | 403; wwwAuthenticate: string; error: string; description: string };

/** The public half of the daemon's signing keys (what verifies access tokens). */
export function publicKeySet(keys: readonly Record<string, unknown>[]): JSONWebKeySet {
  return { keys: keys.map((k) => Object.fromEntries(Object.entries(k).filter(([name]) => !PRIVATE_MEMBERS.includes(name))) as JWK) };
}

/**
 * The resource-server checks of `/mcp` (issue 14; MCP authorization "Token handling", RFC 9068,
 * RFC 6750 §3): an access token is accepted only when it is a JWT of type `at+jwt` signed by one
 * of this server's keys with RS256, issued by this issuer, for audience = the MCP resource URL
 * (never a token issued for anything else), not expired, carrying the required scope, and when
 * its client is still an approved principal and its grant still exists (so `holdfast oauth revoke`
 * and a reused refresh token stop it at once, not at its expiry). The SDK's `verifyBearerToken` /
 * `bearerAuthChallengeResponse` do the audience, scope and expiry checks and build the
 * `WWW-Authenticate: Bearer … resource_metadata="…", scope="…"` challenges; jose verifies the JWT.
 */
export class ResourceServer {
  readonly metadataUrl: string;
  private keySet: ReturnType<typeof createLocalJWKSet>;
  private readonly cache = new Map<string, { at: number; principal: OAuthPrincipalView | null }>();
  private readonly principals = new Map<string, Principal>();

  constructor(
    private readonly settings: OAuthSettings,
    keys: readonly Record<string, unknown>[],
    private readonly backend: OAuthBackend,
    /** Called when a token names a key this server does not have (it may have missed a rotation). */
    private readonly onUnknownKey: () => Promise<boolean>,
  ) {
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(settings.resource));
    this.keySet = createLocalJWKSet(publicKeySet(keys));
  }

  /** Replaces the verification keys (after a rotation). */
  setKeys(keys: readonly Record<string, unknown>[]): void {
    this.keySet = createLocalJWKSet(publicKeySet(keys));
  }

  /** Forgets every cached approval (the daemon said something changed). */
  flush(): void {
    this.cache.clear();
    this.principals.clear();
  }

  /** RFC 9728 protected-resource metadata of `/mcp`. */
  metadata(): OAuthProtectedResourceMetadata {
    return {
      resource: this.settings.resource,
      authorization_servers: [this.settings.issuer],
      scopes_supported: [this.settings.scope],
      bearer_methods_supported: ['header'],
      resource_name: 'holdfast',
    };
  }

  /** Checks the `Authorization` header of a request to `/mcp`. */
  async authenticate(authorization: string | undefined): Promise<ResourceOutcome> {
    if (authorization === undefined || authorization === '') {
      // RFC 6750 §3.1: no error code when the request carried no credentials at all.
      return { ok: false, status: 401, wwwAuthenticate: `Bearer resource_metadata="${this.metadataUrl}", scope="${this.settings.scope}"`, error: 'invalid_request', description: 'an access token is required' };
    }
    const options = {
      verifier: { verifyAccessToken: (token: string) => this.verifyAccessToken(token) },
      requiredScopes: [this.settings.scope],
      resourceMetadataUrl: this.metadataUrl,
      expectedResource: new URL(this.settings.resource),
    };
    try {
      const authInfo = await verifyBearerToken(authorization, options);
      return { ok: true, principal: authInfo.extra!.principal as Principal, authInfo };
    } catch (err) {
      const res = bearerAuthChallengeResponse(err, options);
      const e = err instanceof OAuthError ? err : new OAuthError(OAuthErrorCode.ServerError, 'token check failed');
      return { ok: false, status: res.status === 403 ? 403 : 401, wwwAuthenticate: res.headers.get('www-authenticate') ?? 'Bearer', error: e.code, description: e.message };
    }
  }

  private async verifyAccessToken(token: string): Promise<AuthInfo> {
    const payload = await this.verifyJwt(token, true);
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : '';
    const grantId = typeof payload[GRANT_CLAIM] === 'string' ? (payload[GRANT_CLAIM] as string) : undefined;
    const approved = await this.approval(clientId, grantId);
    if (!approved) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the client is no longer approved or its grant was revoked');
    return {
      token,
      clientId,
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      expiresAt: payload.exp!,
      resource: new URL(String(payload.aud)),
      extra: { principal: this.principalFor(approved) },
    };
  }

  private async verifyJwt(token: string, retryUnknownKey: boolean): Promise<{ [k: string]: unknown; exp?: number; aud?: unknown }> {
    try {
      const { payload } = await jwtVerify(token, this.keySet, {
        issuer: this.settings.issuer,
        audience: this.settings.resource,
        algorithms: [ACCESS_TOKEN_ALG],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'client_id'],
        clockTolerance: CLOCK_TOLERANCE_S,
      });
      return payload;
    } catch (err) {
      if (err instanceof joseErrors.JWKSNoMatchingKey && retryUnknownKey && (await this.onUnknownKey())) return this.verifyJwt(token, false);
      if (err instanceof joseErrors.JWTExpired) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the access token has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw new OAuthError(OAuthErrorCode.InvalidToken, `the access token was not issued for this resource (${err.claim})`);
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'the access token is not valid here');
    }
  }

  private async approval(clientId: string, grantId: string | undefined): Promise<OAuthPrincipalView | null> {
    if (!clientId || !grantId) return null;
    const key = `${clientId}\0${grantId}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < PRINCIPAL_CACHE_MS) return hit.principal;
    const { principal } = await this.backend.call('oauth.principal.get', { client_id: clientId, grant_id: grantId });
    if (this.cache.size >= PRINCIPAL_CACHE_MAX) this.cache.clear();
    this.cache.set(key, { at: now, principal });
    return principal;
  }

  private principalFor(v: OAuthPrincipalView): Principal {
    const key = `${v.principal}\0${v.tools.join(',')}`;
    let p = this.principals.get(key);
    if (!p) {
      p = makePrincipal(v.principal, v.tools, null);
      this.principals.set(key, p);
    }
    return p;
  }
}
