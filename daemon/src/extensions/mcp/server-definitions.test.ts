import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HoldfastConfig } from '@holdfast/shared/config';
import { defineServer, expandVariables, resolveSpec, serverDefinitions } from './server-definitions.js';

describe('upstream server definitions (issue 13)', () => {
  it('expands ${VAR} and ${VAR:-default} like Claude Code', () => {
    const missing = new Set<string>();
    const env = { A: 'a', EMPTY: '' };
    assert.equal(expandVariables('${A}/${B:-b}/${EMPTY:-e}/${EMPTY}/$A/${A:-x}', env, missing), 'a/b/e//$A/a');
    assert.deepEqual([...missing], []);
    expandVariables('${NOPE}-${ALSO}', env, missing);
    assert.deepEqual([...missing].sort(), ['ALSO', 'NOPE']);
  });

  it('config wins over .mcp.json on a name clash; invalid entries are listed with their error', () => {
    const root = mkdtempSync('/tmp/hf-defs-');
    try {
      writeFileSync(
        join(root, '.mcp.json'),
        JSON.stringify({ mcpServers: { a: { command: 'ws-a' }, b: { type: 'http', url: 'http://x/mcp' }, bad: { args: ['no command'] }, old: { type: 'sse', url: 'http://x/sse' } } }),
      );
      const cfg = HoldfastConfig.parse({ mcp_servers: { a: { command: 'config-a' } } });
      const defs = serverDefinitions(cfg, root);
      assert.deepEqual(defs.map((d) => [d.name, d.source]), [['a', 'config'], ['b', 'workspace'], ['bad', 'workspace'], ['old', 'workspace']]);
      assert.equal(defs[0]!.entry!.command, 'config-a');
      assert.match(defs[2]!.error!, /exactly one of command/);
      assert.match(defs[3]!.error!, /HTTP\+SSE transport is not supported/);
      writeFileSync(join(root, '.mcp.json'), '{ not json');
      assert.match(serverDefinitions(cfg, root).find((d) => d.name === '.mcp.json')!.error!, /not JSON/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('resolves a spec: variables, cwd from the workspace root, era defaults, a hash that follows the values', () => {
    const cfg = HoldfastConfig.parse({
      mcp_servers: {
        s: { command: '${BIN:-node}', args: ['--token', '${TOKEN}'], env: { K: '${TOKEN}' }, cwd: 'sub' },
        h: { type: 'http', url: '${URL}', headers: { Authorization: 'Bearer ${TOKEN}' } },
      },
    });
    const [s, h] = serverDefinitions(cfg, '/ws');
    const spec = resolveSpec(s!, '/ws', { TOKEN: 't1' });
    assert.deepEqual({ ...spec, hash: undefined }, { name: 's', transport: 'stdio', command: 'node', args: ['--token', 't1'], env: { K: 't1' }, cwd: '/ws/sub', era: 'legacy', hash: undefined });
    assert.notEqual(resolveSpec(s!, '/ws', { TOKEN: 't2' }).hash, spec.hash, 'a changed value restarts the server');
    const hs = resolveSpec(h!, '/ws', { TOKEN: 't1', URL: 'https://example.test/mcp' });
    assert.equal(hs.era, 'auto');
    assert.deepEqual(hs.headers, { Authorization: 'Bearer t1' });
    assert.throws(() => resolveSpec(s!, '/ws', {}), /TOKEN, which is not set/);
    assert.throws(() => resolveSpec(h!, '/ws', { TOKEN: 'x', URL: 'ftp://x' }), /http or https/);
  });

  it('a workspace entry’s approval hash covers the bytes of the script it runs, not only the entry', () => {
    const root = mkdtempSync('/tmp/hf-defs-');
    try {
      writeFileSync(join(root, 'srv.js'), 'v1');
      const raw = { command: 'node', args: ['srv.js', '--port', '1'] };
      const a = defineServer('s', 'workspace', raw, root).entrySha256;
      assert.equal(defineServer('s', 'workspace', raw, root).entrySha256, a, 'stable');
      writeFileSync(join(root, 'srv.js'), 'v2');
      const b = defineServer('s', 'workspace', raw, root).entrySha256;
      assert.notEqual(b, a, 'editing the script changes the hash');
      assert.notEqual(defineServer('s', 'workspace', { ...raw, env: { X: '1' } }, root).entrySha256, b, 'so does the env');
      assert.equal(defineServer('s', 'workspace', { command: 'node', args: ['missing.js'] }, root).entrySha256, defineServer('s', 'config', { command: 'node', args: ['missing.js'] }).entrySha256, 'no file: the entry alone');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
