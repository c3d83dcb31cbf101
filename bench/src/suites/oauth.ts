import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthFront } from '@holdfast/adapter/oauth';
import { TestHome } from '@holdfast/test/harness';
import { callTool, httpClient, openSession, ownerToken, rawRequest, startAdapter } from '@holdfast/test/harness/mcp';
import { approveInBrowser, pkcePair } from '@holdfast/test/harness/oauth';
import { memoryOAuthBackend } from '../baselines/memory-oauth-backend.js';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';

const S = 'oauth';
const REDIRECT = 'http://127.0.0.1:9/callback';
const FLOWS = 40;

/** One authorization-code flow with raw HTTP: consent (one-time code) timed apart from the token exchange. */
async function flow(issuer: string, clientId: string, code: () => Promise<string>): Promise<{ consentMs: number; tokenMs: number; access: string }> {
  const { verifier, challenge } = pkcePair();
  const url = `${issuer}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's' }).toString()}`;
  const t0 = performance.now();
  const r = await approveInBrowser(url, { approvalCode: code, toolSet: 'profile:coding', stopAt: (u) => u.startsWith(REDIRECT) });
  const t1 = performance.now();
  if (!r.redirect) throw new Error(`consent failed: ${r.last.status}`);
  const res = await rawRequest(`${issuer}/oauth/token`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: new URL(r.redirect).searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId }).toString(),
  });
  const t2 = performance.now();
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.body}`);
  return { consentMs: t1 - t0, tokenMs: t2 - t1, access: (JSON.parse(res.body) as { access_token: string }).access_token };
}

async function register(issuer: string): Promise<string> {
  const r = await rawRequest(`${issuer}/oauth/register`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', application_type: 'native', grant_types: ['authorization_code', 'refresh_token'] }),
  });
  return (JSON.parse(r.body) as { client_id: string }).client_id;
}

/**
 * Issue 14 measures: `execute true` over HTTP with an OAuth JWT against the same call with a static
 * bearer token on the same `--auth dual` adapter (the ratio is what token verification costs), and
 * the authorization-code flow — consent with a one-time code, then the token exchange — against the
 * same authorization server with in-process memory storage (the ratio is the cost of keeping the
 * adapter stateless: every model read and written through the daemon's SQLite).
 */
export async function oauthSuite(): Promise<void> {
  const h = new TestHome();
  const closers: (() => Promise<unknown>)[] = [];
  try {
    await h.startDaemon();
    const adapter = await startAdapter(h, ['--auth', 'dual', '--requests-per-minute', '100000000', '--max-concurrency', '64']);
    closers.push(() => adapter.stop());
    const issuer = new URL(adapter.url).origin;
    const daemon = h.client();
    const code = async (): Promise<string> => (await daemon.call('oauth.approval_code', {})).code;

    // The flow, holdfast (daemon storage) vs the same server on memory storage.
    const clientId = await register(issuer);
    const ours = [];
    for (let i = 0; i < FLOWS; i++) ours.push(await flow(issuer, clientId, code));
    const base = memoryOAuthBackend();
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const baseIssuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const front = await OAuthFront.start(
      { issuer: baseIssuer, resource: `${baseIssuer}/mcp`, scope: 'mcp', accessTokenTtlS: 3600, refreshTokenTtlS: 86400, trustProxyHeaders: false, pinOrigin: false, allowPrivateCimd: false, toolChoices: [{ value: 'profile:coding', label: 'coding', tools: ['execute'] }] },
      base,
      () => undefined,
    );
    server.on('request', (req, res) => {
      const [path, q] = (req.url ?? '/').split('?');
      void front.handle(req, res, path!, q ? `?${q}` : '', '127.0.0.1');
    });
    const baseClient = await register(baseIssuer);
    const theirs = [];
    for (let i = 0; i < FLOWS; i++) theirs.push(await flow(baseIssuer, baseClient, () => Promise.resolve('ANY')));
    const c1 = ours.map((f) => f.consentMs);
    const c0 = theirs.map((f) => f.consentMs);
    const t1 = ours.map((f) => f.tokenMs);
    const t0 = theirs.map((f) => f.tokenMs);
    report({ suite: S, measure: 'authorize → consent (one-time code) → code', value: `p50 ${fmtMs(median(c1))} p99 ${fmtMs(percentile(c1, 99))}`, baseline: `memory storage p50 ${fmtMs(median(c0))}`, ratio: ratio(median(c1), median(c0)), note: '4 HTTP round trips' });
    report({ suite: S, measure: 'token exchange (code → JWT + refresh token)', value: `p50 ${fmtMs(median(t1))} p99 ${fmtMs(percentile(t1, 99))}`, baseline: `memory storage p50 ${fmtMs(median(t0))}`, ratio: ratio(median(t1), median(t0)) });

    // The token check alone, in process (no HTTP noise): RS256 JWT + claims + cached approval vs
    // what a static token costs (SHA-256 and a constant-time compare).
    const baseToken = theirs[theirs.length - 1]!.access;
    const header = `Bearer ${baseToken}`;
    const staticToken = randomBytes(32).toString('base64url');
    const staticDigest = createHash('sha256').update(staticToken).digest();
    const jwtCheck = await sample(2000, async () => {
      const r = await front.authenticate(header);
      if (!r.ok) throw new Error(r.description);
    });
    const staticCheck = await sample(2000, () => Promise.resolve(timingSafeEqual(createHash('sha256').update(staticToken).digest(), staticDigest)));
    const us = (v: number): string => `${(v * 1000).toFixed(1)} µs`;
    report({ suite: S, measure: 'token check alone (in process), OAuth JWT', value: `p50 ${us(median(jwtCheck))} p99 ${us(percentile(jwtCheck, 99))}`, baseline: `static token p50 ${us(median(staticCheck))}`, ratio: ratio(median(jwtCheck), median(staticCheck)) });

    // execute true: OAuth JWT vs static bearer, same adapter, same run.
    const access = ours[ours.length - 1]!.access;
    const jwtClient = await httpClient(adapter.url, access, { pin: '2026-07-28' });
    const staticClient = await httpClient(adapter.url, ownerToken(h), { pin: '2026-07-28' });
    closers.push(() => jwtClient.close(), () => staticClient.close());
    const { id: jid } = await openSession(jwtClient, { workspace: 'ws' });
    const { id: sid } = await openSession(staticClient, { workspace: 'ws' });
    const jwtMs: number[] = [];
    const staticMs: number[] = [];
    // Interleaved, so drift of the machine hits both alike.
    for (let round = 0; round < 8; round++) {
      staticMs.push(...(await sample(25, () => callTool(staticClient, 'execute', { remote_session_id: sid, command: 'true' }), round === 0 ? 20 : 0)));
      jwtMs.push(...(await sample(25, () => callTool(jwtClient, 'execute', { remote_session_id: jid, command: 'true' }), round === 0 ? 20 : 0)));
    }
    report({ suite: S, measure: 'execute `true` over HTTP, OAuth JWT', value: `p50 ${fmtMs(median(jwtMs))} p99 ${fmtMs(percentile(jwtMs, 99))}`, baseline: `static bearer p50 ${fmtMs(median(staticMs))}`, ratio: ratio(median(jwtMs), median(staticMs)), note: 'token verification cost' });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
