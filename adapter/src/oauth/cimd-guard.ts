import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF guard of Client ID Metadata Document fetches (issue 14; draft-ietf-oauth-client-id-
 * metadata-document §6, MCP 2025-11-25 "Client ID Metadata Document security"). A client id URL is
 * fetched only when every address its host resolves to is globally routable: no loopback,
 * private, link-local, carrier-grade NAT, documentation, multicast or other special-use ranges
 * (IANA special-purpose registries, RFC 6890). oidc-provider adds its own check on the socket it
 * connects (which also covers DNS answers that change between this lookup and the connect), a
 * 2.5 s time limit, a 5 KiB size limit, `https:` only, no redirects, and caching by the
 * document's `Cache-Control`/`Expires` within 30 s … 24 h. Only the test-only serve flag
 * `--test-oauth-allow-private-cimd` turns both address checks off.
 */
const SPECIAL_USE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) SPECIAL_USE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) SPECIAL_USE.addSubnet(net, bits, 'ipv6');

/** True for an address that is not globally routable (IPv4-mapped IPv6 judged as IPv4). */
export function isSpecialUseAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return SPECIAL_USE.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return SPECIAL_USE.check(mapped[1]!, 'ipv4');
  return SPECIAL_USE.check(address, 'ipv6');
}

/** Resolves a host name to all its addresses (injectable for tests). */
export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Decides whether a client id URL may be fetched.
 * @returns `null` when allowed, else the reason it is not (for the log).
 */
export async function cimdFetchRefusal(clientId: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:') return 'not an https: URL';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch (err) {
    return `its host does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  const special = addresses.filter(isSpecialUseAddress);
  if (addresses.length === 0) return 'its host has no address';
  if (special.length > 0) return `its host resolves to a private or special-use address (${special.join(', ')})`;
  return null;
}

/**
 * The `fetch` oidc-provider uses for outgoing requests: the platform fetch with oidc-provider's
 * options — except that the test-only flag drops its special-use-address dispatcher.
 */
export function cimdFetch(allowPrivate: boolean): (url: string | URL, init: RequestInit & { dispatcher?: unknown }) => Promise<Response> {
  return (url, init) => {
    if (allowPrivate) {
      const { dispatcher: _ignored, ...rest } = init;
      return globalThis.fetch(url, rest);
    }
    return globalThis.fetch(url, init);
  };
}
