import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { pollUntil, TestHome } from './_harness/home.js';
import { callTool, openSession, rawRequest, run, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';
import { approveInBrowser, createTestCa, MemoryOAuthProvider, startDocumentServer, type TestCa } from './_harness/oauth.js';

/**
 * Issue 14, "Must show": the SDK v2 client's own OAuth support end to end against holdfast in
 * `oauth` mode — once identified by a client ID metadata document (served over HTTPS with a
 * self-signed CA the adapter trusts, on loopback under the test-only flag) and once by dynamic
 * registration; consent approved with a one-time code from `holdfast oauth approve`; then
 * `tools/list` and `execute` work; the refresh token rotates and the old one is refused; and
 * `kill -9` of the adapter loses no grant or token (the state is the daemon's).
 */
describe('OAuth: the SDK client signs in by metadata document and by dynamic registration', () => {
  const h = new TestHome();
  let ca: TestCa;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const documents = new Map<string, unknown>();
  let a: AdapterProcess;
  let port: number;
  const clients: Client[] = [];

  async function startOAuthAdapter(bind: string): Promise<AdapterProcess> {
    return startAdapter(h, ['--auth', 'oauth', '--test-oauth-allow-private-cimd', ...(bind ? ['--bind', bind] : [])], { NODE_EXTRA_CA_CERTS: ca.caFile });
  }

  before(async () => {
    ca = createTestCa();
    docs = await startDocumentServer(ca, documents);
    await h.startDaemon();
    a = await startOAuthAdapter('');
    port = Number(new URL(a.url).port);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await a.kill9();
    await docs.close();
    ca.remove();
    await h.cleanup();
  });

  const approvalCode = async (): Promise<string> => {
    const r = await h.cli(['oauth', 'approve', '--json']);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { code: string }).code;
  };

  /** Connects the SDK client: 401 → discovery → registration → consent (one-time code) → token → connected. */
  async function signIn(provider: MemoryOAuthProvider, toolSet = 'profile:coding'): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(a.url), { authProvider: provider });
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await assert.rejects(first.connect(transport), UnauthorizedError);
    assert.ok(provider.authorizationUrl, 'the client was sent to the authorization endpoint');
    const auth = provider.authorizationUrl;
    assert.equal(auth.origin + auth.pathname, `http://127.0.0.1:${port}/oauth/authorize`);
    assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(auth.searchParams.get('resource'), a.url);
    const consent = await approveInBrowser(auth.href, { approvalCode, toolSet, stopAt: (u) => u.startsWith(provider.redirectUrl) });
    assert.ok(consent.redirect, `consent ended without a redirect: ${consent.last.status} ${/class="err">([^<]*)/.exec(consent.last.body)?.[1] ?? consent.last.body.slice(0, 300)}; adapter stderr: ${a.stderr.slice(-2000)}`);
    const params = new URL(consent.redirect).searchParams;
    assert.equal(params.get('iss'), `http://127.0.0.1:${port}`, 'RFC 9207 iss on the authorization response');
    await transport.finishAuth(params);
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { authProvider: provider }));
    clients.push(client);
    return client;
  }

  it('a client ID metadata document client signs in, lists its tools and runs `execute true`', async () => {
    const redirect = 'http://127.0.0.1:1/callback';
    const id = `${docs.origin}/clients/cimd.json`;
    documents.set('/clients/cimd.json', { client_id: id, client_name: 'CIMD Test Client', redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native' });
    const provider = new MemoryOAuthProvider(redirect, id);
    const client = await signIn(provider, 'profile:coding');
    assert.equal(provider.clientInformation()?.client_id, id, 'no registration: the URL is the client id');
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.ok(names.includes('execute') && names.includes('edit'), names.join());
    const s = await openSession(client, { workspace: 'ws' });
    const r = await run(client, s.id, 'true');
    assert.equal(r.exitCode, 0);
    // The client is a principal of its own: oauth:<name>-<hash>, listed with the tool set picked.
    const listed = await h.cli(['oauth', 'clients', '--json']);
    const entry = (JSON.parse(listed.stdout) as { client_id: string; registration: string; principal: { principal: string; tool_set: string } | null }[]).find((c) => c.client_id === id)!;
    assert.equal(entry.registration, 'metadata_document');
    assert.match(entry.principal!.principal, /^oauth:cimd-test-client-[0-9a-f]{6}$/);
    assert.equal(entry.principal!.tool_set, 'profile:coding');
    assert.equal(s.env.data!.role, 'owner');
  });

  it('a dynamically registered client signs in; its refresh token rotates and the old one is refused', async () => {
    const provider = new MemoryOAuthProvider('http://127.0.0.1:2/callback');
    const client = await signIn(provider, 'profile:read-only');
    assert.notEqual(provider.clientInformation()?.client_id, undefined);
    assert.ok(!/^https:/.test(provider.clientInformation()!.client_id), 'registered: a generated client id');
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('read') && !names.includes('execute'), `read-only profile: ${names.join()}`);
    const refused = await callTool(client, 'execute', { remote_session_id: 'rs_x', command: 'true' });
    assert.equal(refused.env.error!.code, 'TOOL_NOT_ALLOWED');

    const tokens = provider.tokens()!;
    assert.ok(tokens.refresh_token, 'a refresh token was issued');
    const token = (refresh: string) =>
      rawRequest(`http://127.0.0.1:${port}/oauth/token`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: provider.clientInformation()!.client_id }).toString(),
      });
    const rotated = await token(tokens.refresh_token);
    assert.equal(rotated.status, 200, rotated.body);
    const fresh = JSON.parse(rotated.body) as { access_token: string; refresh_token: string };
    assert.notEqual(fresh.refresh_token, tokens.refresh_token, 'rotated on use');
    const list = (bearer: string) =>
      rawRequest(a.url, {
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bearer}`, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    assert.equal((await list(fresh.access_token)).status, 200);
    const reused = await token(tokens.refresh_token);
    assert.equal(reused.status, 400, reused.body);
    assert.equal((JSON.parse(reused.body) as { error: string }).error, 'invalid_grant');
    // Reusing a rotated refresh token revokes the whole grant: its access tokens stop working too.
    await pollUntil('the revoked grant’s access token to be refused', async () => (await list(fresh.access_token)).status === 401, 10_000);
    assert.equal((await token(fresh.refresh_token)).status, 400);
  });

  it('kill -9 of the adapter loses no client, grant or token', async () => {
    const provider = new MemoryOAuthProvider('http://127.0.0.1:3/callback', undefined, 'survivor');
    const client = await signIn(provider);
    const s = await openSession(client, { workspace: 'ws' });
    await a.kill9();
    a = await startOAuthAdapter(`127.0.0.1:${port}`);
    const again = new Client({ name: 'oauth-test', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(a.url), { authProvider: provider }));
    clients.push(again);
    assert.equal((await run(again, s.id, 'echo still-here')).output, 'still-here');
    const refreshed = await rawRequest(`http://127.0.0.1:${port}/oauth/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: provider.tokens()!.refresh_token!, client_id: provider.clientInformation()!.client_id }).toString(),
    });
    assert.equal(refreshed.status, 200, refreshed.body);
  });
});
