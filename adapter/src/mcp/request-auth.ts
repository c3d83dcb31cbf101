import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { OAuthFront } from '../oauth/front.js';
import { BearerAuthenticator, type AuthOutcome } from './auth.js';
import type { Principal } from './principals.js';

/** Decides who sent a request to `/mcp`, by the configured `auth.mode` (DESIGN §6.2, issue 14). */
export interface RequestAuthenticator {
  authenticate(headers: IncomingHttpHeaders, search: string): Promise<AuthOutcome>;
}

/** How `/mcp` is authenticated. */
export type AuthMode =
  | { mode: 'open'; principal: Principal }
  | { mode: 'bearer' | 'dual'; principals: readonly Principal[]; allowQueryToken: boolean }
  | { mode: 'oauth' };

/**
 * The authenticator of a mode: `bearer` — static tokens of principals; `oauth` — access tokens of
 * holdfast's authorization server only; `dual` — a static token of a principal, else an OAuth
 * access token (a request that is neither gets the OAuth challenge, whose `resource_metadata`
 * starts an OAuth client's discovery); `open` — null (everyone is the owner).
 */
export function requestAuthenticator(auth: AuthMode, oauth: OAuthFront | null): RequestAuthenticator | null {
  if (auth.mode === 'open') return null;
  const bearer = auth.mode === 'oauth' ? null : new BearerAuthenticator(auth.principals, { allowQueryToken: auth.allowQueryToken });
  if (oauth === null) {
    if (bearer === null) throw new Error('auth mode oauth needs the OAuth front');
    return { authenticate: (headers, search) => Promise.resolve(bearer.authenticate(headers, search)) };
  }
  return {
    async authenticate(headers, search) {
      if (bearer !== null) {
        const a = bearer.authenticate(headers, search);
        if (a.ok) return a;
      }
      const r = await oauth.authenticate(headers.authorization);
      return r.ok ? { ok: true, principal: r.principal } : r;
    },
  };
}

/**
 * The address a request came from: the socket's peer, or — behind a proxy whose headers are
 * trusted (`--trust-proxy-headers`) — the first address of `X-Forwarded-For`.
 */
export function clientAddress(req: IncomingMessage, trustProxyHeaders: boolean): string {
  if (trustProxyHeaders) {
    const fwd = req.headers['x-forwarded-for'];
    const first = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}
