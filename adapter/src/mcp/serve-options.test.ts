import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HoldfastConfig } from '@holdfast/shared/config';
import { homeLayout } from '@holdfast/shared/paths';
import { isLoopbackHost, parseBind, resolveServe } from './serve-options.js';

describe('serve options', () => {
  const home = mkdtempSync('/tmp/hf-opts-');
  after(() => rmSync(home, { recursive: true, force: true }));
  const layout = homeLayout(home);
  const cfg = (raw: unknown = {}) => HoldfastConfig.parse(raw);

  it('parses --bind forms', () => {
    const d = { host: '127.0.0.1', port: 8000 };
    assert.deepEqual(parseBind('0.0.0.0:9000', d), { host: '0.0.0.0', port: 9000 });
    assert.deepEqual(parseBind('[::1]:7', d), { host: '::1', port: 7 });
    assert.deepEqual(parseBind('::1', d), { host: '::1', port: 8000 });
    assert.deepEqual(parseBind(':0', d), { host: '127.0.0.1', port: 0 });
    assert.deepEqual(parseBind('localhost', d), { host: 'localhost', port: 8000 });
    assert.throws(() => parseBind('h:99999', d), /port/);
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com']) assert.ok(!isLoopbackHost(h), h);
  });

  it('flags override config.yaml', () => {
    const r = resolveServe({ bind: '127.0.0.1:0', maxConcurrency: 3, toolProfile: 'terminal', sessionAffinity: 'thread', auth: 'open' }, cfg({ limits: { max_concurrency: 9, requests_per_minute: 7 }, tools: { profile: 'read-only' } }), layout);
    assert.equal(r.http!.maxConcurrency, 3);
    assert.equal(r.http!.requestsPerMinute, 7);
    assert.equal(r.affinity, 'thread');
    assert.deepEqual(r.defaultTools, ['execute', 'observe', 'session', 'workspace']);
    assert.equal(r.http!.auth.mode, 'open');
  });

  it('--allow-tool replaces the profile; config tools.allowed does too', () => {
    assert.deepEqual(resolveServe({ stdio: true, allowTool: ['session', 'workspace'] }, cfg(), layout).defaultTools, ['session', 'workspace']);
    assert.deepEqual(resolveServe({ stdio: true }, cfg({ tools: { allowed: ['workspace'] } }), layout).defaultTools, ['workspace']);
  });

  it('serves a tool list without session or workspace, with a warning naming the gap', () => {
    const noSession = resolveServe({ stdio: true, allowTool: ['read', 'execute'] }, cfg(), layout);
    assert.deepEqual(noSession.defaultTools, ['execute', 'read']);
    assert.ok(noSession.warnings.some((w) => /--allow-tool: .*need a remote_session_id, but "session" is not allowed/.test(w)), noSession.warnings.join('\n'));
    const noWorkspace = resolveServe({ stdio: true, allowTool: ['session', 'read'] }, cfg(), layout);
    assert.ok(noWorkspace.warnings.some((w) => /"workspace" is not allowed/.test(w)), noWorkspace.warnings.join('\n'));
    for (const profile of ['full', 'coding', 'read-only', 'terminal', 'desktop'] as const) {
      const r = resolveServe({ stdio: true, toolProfile: profile }, cfg(), layout);
      assert.deepEqual(r.warnings.filter((w) => /is not allowed/.test(w)), [], `profile ${profile} is complete`);
    }
    assert.deepEqual(resolveServe({ stdio: true, allowTool: ['workspace'] }, cfg(), layout).warnings.filter((w) => /is not allowed/.test(w)), []);
  });

  it('refuses non-loopback binds, open auth off loopback, and two token sources', () => {
    assert.throws(() => resolveServe({ bind: '0.0.0.0:0', auth: 'open' }, cfg(), layout), /refusing to listen on 0\.0\.0\.0/);
    assert.throws(() => resolveServe({ bind: '0.0.0.0:0', auth: 'open', allowNonLoopback: true }, cfg(), layout), /loopback testing only/);
    assert.throws(() => resolveServe({ bind: '0.0.0.0:0', auth: 'open' }, cfg({ listen: { allow_non_loopback: true } }), layout), /loopback testing only/);
    const t = join(home, 't');
    writeFileSync(t, 'z'.repeat(40), { mode: 0o600 });
    assert.throws(() => resolveServe({ bind: '127.0.0.1:0', tokenFile: t, principalConfig: join(home, 'p.yaml') }, cfg(), layout), /not both/);
    assert.throws(() => resolveServe({ http: true, stdio: true }, cfg(), layout), /one of --http or --stdio/);
  });

  it('generates <home>/token for bearer auth without a configured token, and accepts an allowed non-loopback bind', () => {
    const r = resolveServe({ bind: '192.168.7.7:0', allowNonLoopback: true }, cfg(), layout);
    assert.deepEqual(r.tokenFile, { path: layout.token, generated: true });
    assert.ok(r.http!.allowedHosts.includes('192.168.7.7'), 'the bound address is an accepted Host');
    assert.ok(r.warnings.some((w) => w.includes('non-loopback')));
    assert.equal(resolveServe({ bind: '127.0.0.1:0' }, cfg(), layout).tokenFile!.generated, false);
  });
});
