import type { IncomingHttpHeaders } from 'node:http';
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';

/**
 * DNS-rebinding and cross-site protection (DESIGN §6.2; MCP 2025-11-25 transports: an invalid
 * `Origin` MUST get 403). `Host` must name a loopback host or an `--allowed-host`; an `Origin`,
 * when present, must name one of the same hosts. Ports are ignored (the SDK validators compare
 * hostnames). Both checks run before authentication and before any MCP parsing.
 */
export type GuardOutcome = { ok: true } | { ok: false; status: 403; message: string };

/** Normalizes an allowed-host value: lowercase, no port, IPv6 in brackets. */
export function normalizeAllowedHost(value: string): string {
  let v = value.trim().toLowerCase();
  if (v.includes('://')) {
    try {
      v = new URL(v).hostname;
    } catch {
      // keep as given; it simply will not match
    }
  }
  if (v.startsWith('[')) return v.slice(0, v.indexOf(']') + 1);
  const colons = v.split(':').length - 1;
  if (colons > 1) return `[${v}]`; // bare IPv6
  if (colons === 1) return v.slice(0, v.indexOf(':')); // host:port
  return v;
}

/** `uri-host [ ":" port ]`: a bracketed IPv6 literal or a name/IPv4 address, an optional port. */
const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/**
 * The origin-form path of a request target, or a refusal. An absolute-form target
 * (`GET http://evil.example/mcp`, RFC 9112 §3.2.2) names the host the request is for — a server
 * MUST then ignore `Host` — so its authority is held to the same allowlist; `*` and
 * authority-form are refused.
 */
export function requestPath(target: string, allowed: readonly string[]): { ok: true; path: string } | { ok: false; status: 403; message: string } {
  if (target.startsWith('/')) return { ok: true, path: target };
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return { ok: false, status: 403, message: 'Forbidden: the request target must be a path' };
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !allowed.includes(u.hostname) || u.username !== '' || u.password !== '') {
    return { ok: false, status: 403, message: `Forbidden: Invalid Host: ${u.hostname || target.slice(0, 100)}` };
  }
  return { ok: true, path: `${u.pathname}${u.search}` };
}

/** Checks `Host` and `Origin` headers against an allowlist of hostnames. */
export class HostOriginGuard {
  /** The hostnames accepted (loopback names plus the extra ones), normalized. */
  readonly allowed: readonly string[];

  constructor(extraHosts: readonly string[]) {
    this.allowed = [...new Set([...localhostAllowedHostnames(), ...extraHosts.map(normalizeAllowedHost)])];
  }

  /**
   * @param opts.origin check `Origin` too (default); the OAuth endpoints that browser-based clients
   *   call cross-origin on purpose (metadata, token, registration, revocation) pass false (issue 14).
   */
  check(headers: IncomingHttpHeaders, opts: { origin: boolean } = { origin: true }): GuardOutcome {
    // RFC 9110 §7.2: Host is `uri-host [ ":" port ]`. The SDK's check reads it through the URL
    // parser, which accepts `localhost/anything` or `localhost\…` as localhost: refuse those.
    if (typeof headers.host === 'string' && !HOST_SYNTAX.test(headers.host)) {
      return { ok: false, status: 403, message: `Forbidden: malformed Host header ${JSON.stringify(headers.host.slice(0, 100))}` };
    }
    const host = validateHostHeader(headers.host, this.allowed as string[]);
    if (!host.ok) return { ok: false, status: 403, message: `Forbidden: ${host.message}` };
    if (!opts.origin) return { ok: true };
    const origin = validateOriginHeader(headers.origin, this.allowed as string[]);
    if (!origin.ok) return { ok: false, status: 403, message: `Forbidden: ${origin.message}` };
    return { ok: true };
  }
}
