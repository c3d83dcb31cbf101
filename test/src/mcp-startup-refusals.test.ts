import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { ownerToken, rawRequest, legacyHeaders, serveRefusal, startAdapter } from './_harness/mcp-adapter.js';

/**
 * Start-up refusals of DESIGN §6.2: `holdfast serve --http` exits non-zero, before listening,
 * with a message saying what is wrong — for weak tokens, unsafe token files, non-loopback binds,
 * `--auth open` off loopback, and principals files naming unknown tools or none.
 */
const STRONG = 'k'.repeat(40);

describe('holdfast serve refuses unsafe set-ups at start-up', () => {
  const h = new TestHome();
  after(() => h.cleanup());

  function tokenFile(name: string, content: string, mode = 0o600): string {
    const p = join(h.home, name);
    writeFileSync(p, content, { mode });
    chmodSync(p, mode);
    return p;
  }

  it('a token shorter than 32 bytes, unless --allow-weak-token', async () => {
    const weak = tokenFile('weak', 'short-token-16by\n');
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--token-file', weak]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /16 bytes; at least 32/);
    assert.ok(!r.stderr.includes('short-token-16by'), 'the token is never printed');
    const a = await startAdapter(h, ['--token-file', weak, '--allow-weak-token']);
    try {
      assert.match(a.stderr, /allow-weak-token/);
      const ok = await rawRequest(a.url, { headers: legacyHeaders('short-token-16by'), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      assert.equal(ok.status, 200);
    } finally {
      await a.kill9();
    }
  });

  it('a port already in use: exits non-zero and says to pick another with --bind', async () => {
    const first = await startAdapter(h);
    try {
      const r = await serveRefusal(h, ['--http', '--bind', `127.0.0.1:${new URL(first.url).port}`, '--token-file', tokenFile('busy', STRONG)]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /127\.0\.0\.1:\d+ is already in use .*--bind 127\.0\.0\.1:PORT/);
    } finally {
      await first.kill9();
    }
  });

  it('a token file that is group/world readable', async () => {
    const p = tokenFile('wide', STRONG, 0o644);
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--token-file', p]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /mode 0644; it must be 0600/);
  });

  it('a token file that is a symlink (even to a good file)', async () => {
    const target = tokenFile('real', STRONG);
    const link = join(h.home, 'link');
    symlinkSync(target, link);
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--token-file', link]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /is a symlink/);
  });

  it('a token file that is a directory', async () => {
    const dir = join(h.home, 'tokdir');
    mkdirSync(dir, { mode: 0o700 });
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--token-file', dir]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /not a regular file/);
  });

  it('a missing token file', async () => {
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--token-file', join(h.home, 'nope')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /cannot be read: ENOENT/);
  });

  it('a non-loopback bind without --allow-non-loopback', async () => {
    const r = await serveRefusal(h, ['--http', '--bind', '0.0.0.0:0']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0/);
  });

  it('--auth open on a non-loopback bind, even with --allow-non-loopback', async () => {
    const r = await serveRefusal(h, ['--http', '--bind', '0.0.0.0:0', '--allow-non-loopback', '--auth', 'open']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--auth open is for loopback testing only/);
  });

  it('--auth open on loopback serves without a token and warns loudly', async () => {
    const a = await startAdapter(h, ['--auth', 'open']);
    try {
      assert.match(a.stderr, /WARNING: --auth open: no token is required/);
      const ok = await rawRequest(a.url, { headers: legacyHeaders(null), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      assert.equal(ok.status, 200);
    } finally {
      await a.kill9();
    }
  });

  it('a principal naming an unknown tool in allowed_tools', async () => {
    tokenFile('alice.token', STRONG);
    const cfg = join(h.home, 'principals-unknown.yaml');
    writeFileSync(cfg, 'principals:\n  - name: alice\n    token_file: alice.token\n    allowed_tools: [workspace, rm_rf]\n');
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--principal-config', cfg]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /principal "alice".*unknown tool name\(s\) "rm_rf"/);
  });

  it('a principal with an empty allowed_tools', async () => {
    tokenFile('alice.token', STRONG);
    const cfg = join(h.home, 'principals-empty.yaml');
    writeFileSync(cfg, 'principals:\n  - name: alice\n    token_file: alice.token\n    allowed_tools: []\n');
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--principal-config', cfg]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /allowed_tools must not be empty/);
  });

  it('an unknown --allow-tool name', async () => {
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--allow-tool', 'workspace', '--allow-tool', 'format_disk']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--allow-tool: unknown tool name\(s\) "format_disk"/);
  });

  it('a principal whose token_env is unset, or weak', async () => {
    const cfg = join(h.home, 'principals-env.yaml');
    writeFileSync(cfg, 'principals:\n  - name: bob\n    token_env: HF_TEST_BOB_TOKEN\n    tool_profile: terminal\n');
    const unset = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--principal-config', cfg]);
    assert.notEqual(unset.code, 0);
    assert.match(unset.stderr, /HF_TEST_BOB_TOKEN is not set/);
    const weak = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--principal-config', cfg], { HF_TEST_BOB_TOKEN: 'tiny' });
    assert.notEqual(weak.code, 0);
    assert.match(weak.stderr, /at least 32/);
  });

  it('both --token-file and --principal-config', async () => {
    const t = tokenFile('both.token', STRONG);
    const cfg = join(h.home, 'principals-both.yaml');
    writeFileSync(cfg, `principals:\n  - name: alice\n    token_file: ${t}\n`);
    const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--token-file', t, '--principal-config', cfg]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /either --token-file or --principal-config/);
  });

  it('generates <home>/token (0600, ≥ 32 bytes) when none is configured and prints its path, never the token', async () => {
    const a = await startAdapter(h);
    try {
      const token = ownerToken(h);
      assert.ok(Buffer.byteLength(token) >= 32);
      assert.equal(statSync(h.layout.token).mode & 0o777, 0o600);
      assert.ok(a.stdout.includes(h.layout.token), 'the path is printed');
      assert.ok(!a.stdout.includes(token) && !a.stderr.includes(token), 'the token is not printed');
      assert.equal(readFileSync(h.layout.token, 'utf8').trim(), token);
    } finally {
      await a.kill9();
    }
    // A second start reuses it.
    const b = await startAdapter(h);
    try {
      assert.match(b.stdout, /read from/);
    } finally {
      await b.kill9();
    }
  });
});
