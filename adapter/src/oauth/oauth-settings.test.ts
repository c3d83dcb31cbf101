import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { HoldfastConfig } from '@holdfast/shared/config';
import { homeLayout } from '@holdfast/shared/paths';
import { resolveServe } from '../mcp/serve-options.js';
import { cimdFetchRefusal, isSpecialUseAddress } from './cimd-guard.js';
import { withDefaultScope } from './front.js';
import { sameResource } from './provider.js';

describe('OAuth settings and guards (issue 14)', () => {
  const home = mkdtempSync('/tmp/hf-oauth-opts-');
  after(() => rmSync(home, { recursive: true, force: true }));
  const layout = homeLayout(home);
  const cfg = (raw: unknown = {}) => HoldfastConfig.parse(raw);

  it('oauth mode takes server_url as the public origin and lets its host in', () => {
    const r = resolveServe({ bind: '127.0.0.1:0', auth: 'oauth' }, cfg({ auth: { oauth: { server_url: 'https://hf.example.com/' } } }), layout);
    assert.equal(r.http!.auth.mode, 'oauth');
    assert.equal(r.http!.oauth!.serverUrl, 'https://hf.example.com');
    assert.ok(r.http!.allowedHosts.includes('hf.example.com'));
    assert.deepEqual(
      r.http!.oauth!.toolChoices.map((c) => c.value),
      ['profile:read-only', 'profile:coding', 'profile:terminal', 'profile:full'],
    );
    const flag = resolveServe({ bind: '127.0.0.1:0', auth: 'dual', oauthServerUrl: 'https://other.example.com', trustProxyHeaders: true }, cfg(), layout);
    assert.equal(flag.http!.oauth!.serverUrl, 'https://other.example.com');
    assert.equal(flag.http!.oauth!.trustProxyHeaders, true);
    assert.equal(flag.http!.auth.mode, 'dual');
  });

  it('refuses a server_url that is not an https origin (http only on loopback)', () => {
    for (const bad of ['http://hf.example.com', 'https://hf.example.com/mcp', 'https://hf.example.com/?x=1', 'https://user:pw@hf.example.com', 'not a url']) {
      assert.throws(() => resolveServe({ bind: '127.0.0.1:0', auth: 'oauth', oauthServerUrl: bad }, cfg(), layout), /server_url/, bad);
    }
    assert.equal(resolveServe({ bind: '127.0.0.1:0', auth: 'oauth', oauthServerUrl: 'http://127.0.0.1:8000' }, cfg(), layout).http!.oauth!.serverUrl, 'http://127.0.0.1:8000');
    assert.throws(() => resolveServe({ bind: '0.0.0.0:0', allowNonLoopback: true, auth: 'oauth' }, cfg(), layout), /needs auth\.oauth\.server_url/);
  });

  it('bearer mode has no OAuth settings', () => {
    assert.equal(resolveServe({ bind: '127.0.0.1:0' }, cfg(), layout).http!.oauth, null);
  });

  it('classifies special-use addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1']) {
      assert.ok(isSpecialUseAddress(ip), ip);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.ok(!isSpecialUseAddress(ip), ip);
  });

  it('fetches metadata documents only from https URLs on public addresses, unless the test flag', async () => {
    const resolver = (map: Record<string, string[]>) => (host: string) => Promise.resolve(map[host] ?? []);
    const dns = resolver({ 'public.example': ['93.184.216.34'], 'rebind.example': ['93.184.216.34', '127.0.0.1'], 'internal.example': ['10.0.0.7'] });
    assert.equal(await cimdFetchRefusal('https://public.example/c.json', false, dns), null);
    assert.match((await cimdFetchRefusal('https://rebind.example/c.json', false, dns))!, /127\.0\.0\.1/);
    assert.match((await cimdFetchRefusal('https://internal.example/c.json', false, dns))!, /special-use/);
    assert.match((await cimdFetchRefusal('https://127.0.0.1/c.json', false, dns))!, /special-use/);
    assert.match((await cimdFetchRefusal('http://public.example/c.json', false, dns))!, /https/);
    assert.match((await cimdFetchRefusal('https://nowhere.example/c.json', false, dns))!, /no address/);
    assert.equal(await cimdFetchRefusal('https://127.0.0.1/c.json', true, dns), null);
  });

  it('fills in the MCP scope when an authorization request has none', () => {
    assert.equal(new URLSearchParams(withDefaultScope('?client_id=a', 'mcp')).get('scope'), 'mcp');
    assert.equal(new URLSearchParams(withDefaultScope('?client_id=a&scope=', 'mcp')).get('scope'), 'mcp');
    assert.equal(withDefaultScope('?scope=mcp+offline_access', 'mcp'), '?scope=mcp+offline_access');
  });

  it('compares resource indicators as MCP says (case of scheme and host, one trailing slash)', () => {
    assert.ok(sameResource('HTTPS://HF.example.com/mcp', 'https://hf.example.com/mcp'));
    assert.ok(sameResource('https://hf.example.com/mcp/', 'https://hf.example.com/mcp'));
    assert.ok(!sameResource('https://hf.example.com/MCP', 'https://hf.example.com/mcp'));
    assert.ok(!sameResource('https://hf.example.com:8443/mcp', 'https://hf.example.com/mcp'));
    assert.ok(!sameResource('https://hf.example.com/mcp#x', 'https://hf.example.com/mcp'));
  });
});
