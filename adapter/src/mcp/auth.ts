import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AuthConstants } from './constants.js';
import { tokenDigest, type Principal } from './principals.js';

/**
 * Bearer authentication of HTTP requests (DESIGN §6.2, RFC 6750). The presented token is hashed
 * and compared with every principal's digest using `timingSafeEqual`, always against all of them,
 * so neither the position of a match nor a common prefix shows in the timing. `?token=` is read
 * only when `allowQueryToken` is set (query strings end up in proxy and shell history).
 */
export type AuthOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 403; wwwAuthenticate: string; error: string; description: string };

/** Options of {@link BearerAuthenticator}. */
export interface BearerAuthOptions {
  allowQueryToken: boolean;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** Authenticates requests against a fixed list of principals with tokens. */
export class BearerAuthenticator {
  private readonly digests: { principal: Principal; digest: Buffer }[];

  constructor(principals: readonly Principal[], private readonly opts: BearerAuthOptions) {
    this.digests = principals.filter((p) => p.tokenDigest !== null).map((p) => ({ principal: p, digest: p.tokenDigest! }));
  }

  /**
   * Decides who sent a request.
   * @param search the request URL's query string (with or without `?`), for `?token=`.
   */
  authenticate(headers: IncomingHttpHeaders, search: string): AuthOutcome {
    let token: string | undefined;
    const header = headers.authorization;
    if (header !== undefined) {
      const m = BEARER.exec(header);
      if (!m) return this.fail('invalid_request', 'the Authorization header must be "Bearer <token>"');
      token = m[1];
    } else if (this.opts.allowQueryToken && search.length > 1) {
      token = new URLSearchParams(search).get('token') ?? undefined;
    }
    if (token === undefined || token.length === 0) return this.fail(null, 'a bearer token is required');
    const digest = tokenDigest(token);
    let found: Principal | undefined;
    for (const d of this.digests) {
      // Compare against every principal, without an early exit.
      if (timingSafeEqual(digest, d.digest) && found === undefined) found = d.principal;
    }
    if (found === undefined) return this.fail('invalid_token', 'the bearer token is not valid');
    return { ok: true, principal: found };
  }

  private fail(error: 'invalid_request' | 'invalid_token' | null, description: string): AuthOutcome {
    // RFC 6750 §3.1: no error code when the request carried no credentials at all.
    const parts = [`realm="${AuthConstants.REALM}"`];
    if (error !== null) parts.push(`error="${error}"`, `error_description="${description}"`);
    return { ok: false, status: 401, wwwAuthenticate: `Bearer ${parts.join(', ')}`, error: error ?? 'invalid_request', description };
  }
}
