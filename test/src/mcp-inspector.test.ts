import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { homeEnv, ownerToken, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * A third-party client: the MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, pinned in
 * test/package.json) drives the adapter headless over Streamable HTTP with a bearer header — it
 * lists the tools and calls `workspace`.
 */
const require = createRequire(import.meta.url);
const INSPECTOR = join(require.resolve('@modelcontextprotocol/inspector/package.json'), '..', 'clients', 'launcher', 'build', 'index.js');

function inspector(h: TestHome, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // HOME inside the test home: the inspector keeps its state under ~/.mcp-inspector.
  const child = spawn(process.execPath, [INSPECTOR, '--cli', ...args], { env: homeEnv(h, { HOME: h.home }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`inspector timed out: ${stderr}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

describe('MCP Inspector CLI against holdfast serve --http', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  before(async () => {
    await h.startDaemon();
    a = await startAdapter(h);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it('lists the tools and calls workspace with a bearer header', async () => {
    const auth = ['--transport', 'http', '--header', `Authorization: Bearer ${ownerToken(h)}`, '--stored-auth-only', '--format', 'json', '-q'];
    const list = await inspector(h, [a.url, ...auth, '--method', 'tools/list']);
    assert.equal(list.code, 0, list.stderr);
    const tools = (JSON.parse(list.stdout) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    assert.ok(tools.includes('workspace') && tools.includes('session') && tools.includes('execute'), tools.join(','));

    const call = await inspector(h, [a.url, ...auth, '--method', 'tools/call', '--tool-name', 'workspace']);
    assert.equal(call.code, 0, call.stderr);
    const result = (JSON.parse(call.stdout) as { result: { isError: boolean; structuredContent: { status: string; data: { workspaces: { name: string; path: string }[] } } } }).result;
    assert.equal(result.isError, false);
    assert.equal(result.structuredContent.status, 'succeeded');
    assert.deepEqual(result.structuredContent.data.workspaces.map((w) => [w.name, w.path]), [['ws', h.workspace]]);

    const refused = await inspector(h, [a.url, '--transport', 'http', '--header', 'Authorization: Bearer wrong-token', '--stored-auth-only', '--format', 'json', '-q', '--method', 'tools/list']);
    assert.notEqual(refused.code, 0, 'a wrong token is refused');
  });
});
