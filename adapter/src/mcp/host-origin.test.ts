import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HostOriginGuard, normalizeAllowedHost, requestPath } from './host-origin.js';

describe('HostOriginGuard (DNS rebinding, DESIGN §6.2)', () => {
  const g = new HostOriginGuard(['MCP.Example.com:443', 'https://other.example']);

  it('accepts loopback names and allowed hosts, any port', () => {
    for (const host of ['localhost:8000', '127.0.0.1:1', '[::1]:8000', 'mcp.example.com', 'other.example:9']) assert.ok(g.check({ host }).ok, host);
    assert.ok(g.check({ host: 'localhost', origin: 'http://localhost:5173' }).ok);
    assert.ok(g.check({ host: 'mcp.example.com', origin: 'https://mcp.example.com' }).ok);
  });

  it('refuses other hosts, a missing Host, and bad or opaque origins', () => {
    assert.equal(g.check({ host: 'evil.com' }).ok, false);
    assert.equal(g.check({}).ok, false);
    assert.equal(g.check({ host: 'localhost', origin: 'http://evil.com' }).ok, false);
    assert.equal(g.check({ host: 'localhost', origin: 'null' }).ok, false);
  });

  it('normalizes allowed-host values', () => {
    assert.equal(normalizeAllowedHost('Example.COM:8443'), 'example.com');
    assert.equal(normalizeAllowedHost('::1'), '[::1]');
    assert.equal(normalizeAllowedHost('[fe80::1]:80'), '[fe80::1]');
    assert.equal(normalizeAllowedHost('https://a.b/c'), 'a.b');
  });
  it('refuses a Host that is not uri-host[:port] even when the URL parser would read localhost in it', () => {
    for (const host of ['localhost/evil', 'localhost\\@evil.example', 'localhost:1@evil.example', 'localhost?x', 'local host', '']) assert.equal(g.check({ host }).ok, false, host);
  });

  it('holds an absolute-form request target to the same hosts', () => {
    assert.deepEqual(requestPath('/mcp?x=1', g.allowed), { ok: true, path: '/mcp?x=1' });
    assert.deepEqual(requestPath('http://127.0.0.1:8000/mcp?x=1', g.allowed), { ok: true, path: '/mcp?x=1' });
    for (const t of ['http://evil.example/mcp', '*', 'evil.example:443', 'http://u:p@localhost/mcp', 'ftp://localhost/mcp']) assert.equal(requestPath(t, g.allowed).ok, false, t);
  });
});
