import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { rawRequest, type RawResponse } from './mcp-adapter.js';

/**
 * Helpers for the OAuth scenario tests (issue 14) and the conformance runner's `authorization`
 * scenarios: a scripted browser that walks an authorization through holdfast's consent page with
 * a one-time code (the test-only consent helper: it uses the real approval path, nothing in the
 * server is switched on for it), an in-memory OAuth client provider for the SDK client, PKCE, a
 * self-signed CA with an HTTPS server for client ID metadata documents, and tokens signed with the
 * home's own key for the resource-server refusals.
 */

/** A PKCE verifier and its S256 challenge (RFC 7636). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Options of {@link approveInBrowser}. */
export interface ConsentOptions {
  /** A one-time code (e.g. from `holdfast oauth approve --json`), fetched when the page is shown. */
  approvalCode?: () => Promise<string>;
  password?: string;
  /** Tool set to pick (`profile:coding`); default: the page's preselection. */
  toolSet?: string;
  /** `deny` instead of approving. */
  deny?: boolean;
  /** Stop at the first redirect whose URL satisfies this (the client's redirect URI). */
  stopAt: (url: string) => boolean;
}

/** What the scripted browser ended with: the redirect to the client, or a page it stopped at. */
export interface ConsentResult {
  /** The final redirect (to the client's redirect URI), if reached. */
  redirect: string | null;
  /** The last response (e.g. the consent page re-shown with an error). */
  last: RawResponse;
  /** Every consent page HTML seen. */
  pages: string[];
}

function cookieHeader(jar: Map<string, string>): string {
  return [...jar.entries()].map(([k, v]) => `${k}=${v}`).join('; ');
}

function keepCookies(jar: Map<string, string>, res: RawResponse): void {
  const set = res.headers['set-cookie'] ?? [];
  for (const c of set) {
    const [pair] = c.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') jar.delete(name);
    else jar.set(name, value);
  }
}

function formField(html: string, re: RegExp): string | null {
  const m = re.exec(html);
  return m ? m[1]!.replace(/&#(\d+);/g, (_s, n: string) => String.fromCharCode(Number(n))) : null;
}

/**
 * Walks an authorization request as a browser would: follows redirects with a cookie jar, and on
 * holdfast's consent page submits the approval (one-time code or password) — the test-only
 * consent helper. Stops at the redirect to the client (`stopAt`).
 */
export async function approveInBrowser(authorizationUrl: string, opts: ConsentOptions): Promise<ConsentResult> {
  const jar = new Map<string, string>();
  const pages: string[] = [];
  let url = authorizationUrl;
  let method = 'GET';
  let body: string | undefined;
  let last: RawResponse | null = null;
  for (let hop = 0; hop < 12; hop++) {
    const u = new URL(url);
    const headers: Record<string, string> = { cookie: cookieHeader(jar), accept: 'text/html' };
    if (method === 'POST') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = u.origin;
    }
    const res = await rawRequest(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    last = res;
    keepCookies(jar, res);
    method = 'GET';
    body = undefined;
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url).href;
      if (opts.stopAt(next)) return { redirect: next, last: res, pages };
      url = next;
      continue;
    }
    if (res.status === 200 && /<form method="post"/.test(res.body)) {
      pages.push(res.body);
      const action = formField(res.body, /<form method="post" action="([^"]+)"/);
      if (action === null) break;
      const form = new URLSearchParams();
      form.set('decision', opts.deny ? 'deny' : 'approve');
      form.set('tool_set', opts.toolSet ?? formField(res.body, /<option value="([^"]+)" selected>/) ?? '');
      if (opts.password !== undefined) form.set('password', opts.password);
      if (opts.approvalCode) form.set('code', await opts.approvalCode());
      url = new URL(action, url).href;
      method = 'POST';
      body = form.toString();
      if (pages.length > 1) return { redirect: null, last: res, pages };
      continue;
    }
    break;
  }
  return { redirect: null, last: last!, pages };
}

/**
 * An in-memory OAuth client provider for the SDK client: with `clientMetadataUrl` it identifies
 * itself by a client ID metadata document, else it registers dynamically (RFC 7591). The
 * authorization URL it is sent to is kept for the test to walk with {@link approveInBrowser}.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  private info: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;

  constructor(
    private readonly redirect: string,
    readonly clientMetadataUrl?: string,
    private readonly name = 'holdfast test client',
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.info;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.info = info;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
}

/** A self-signed CA and a server certificate for `localhost` and `127.0.0.1` (openssl, EC P-256). */
export interface TestCa {
  dir: string;
  /** PEM file of the CA, for `NODE_EXTRA_CA_CERTS`. */
  caFile: string;
  key: Buffer;
  cert: Buffer;
  remove(): void;
}

/** Creates a throw-away CA (valid 2 days) and a server certificate signed by it. */
export function createTestCa(): TestCa {
  const dir = mkdtempSync('/tmp/hf-ca-');
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=holdfast test CA']);
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=localhost']);
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
  run(['x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.pem', '-days', '2', '-extfile', 'ext.cnf']);
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'srv.key')),
    cert: readFileSync(join(dir, 'srv.pem')),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An HTTPS server on 127.0.0.1 serving JSON documents by path (client ID metadata documents). */
export async function startDocumentServer(ca: TestCa, docs: Map<string, unknown>): Promise<{ origin: string; server: HttpsServer; close(): Promise<void> }> {
  const server = createHttpsServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const doc = docs.get(req.url ?? '');
    if (doc === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** The signing key the daemon created in a home (`<home>/oauth/keys/*.json`; the newest when several). */
export function homeSigningJwk(home: string): Record<string, unknown> & { kid: string } {
  const dir = join(home, 'oauth', 'keys');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (files.length !== 1) throw new Error(`expected one signing key in ${dir}, found ${files.length}`);
  return JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as Record<string, unknown> & { kid: string };
}

/** Signs an access-token-shaped JWT (RFC 9068 `at+jwt`, RS256) with a private JWK. */
export async function signAccessToken(jwk: Record<string, unknown> & { kid: string }, claims: JWTPayload): Promise<string> {
  const key = await importJWK(jwk as never, 'RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: jwk.kid }).sign(key);
}
