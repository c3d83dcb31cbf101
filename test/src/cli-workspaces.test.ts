import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '@holdfast/shared/config';
import { CLI_MAIN, TestHome } from './_harness/home.js';

/**
 * Naming and removing workspaces from the CLI (fresh-user review): `holdfast serve --name <name>`
 * registers the folder it serves under that name, and `holdfast workspace remove <name>`
 * unregisters one — refused, with the sessions to end named, while a live session uses it.
 */
describe('holdfast serve --name and holdfast workspace remove', () => {
  const h = new TestHome();
  const project = join(h.home, 'my-project');
  const children: ChildProcess[] = [];

  /** `holdfast serve` in `cwd`; resolves with its stderr once it serves. */
  const serve = (args: string[], cwd: string): Promise<{ child: ChildProcess; stderr: () => string }> => {
    const child = spawn(process.execPath, [CLI_MAIN, 'serve', '--bind', '127.0.0.1:0', ...args], { cwd, env: h.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not get ready within 30 s; stderr: ${err}`)), 30_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/serving MCP at/.test(out)) {
          clearTimeout(timer);
          resolve({ child, stderr: () => err });
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited (${code}) before it was ready; stderr: ${err}`));
      });
    });
  };
  const stop = async (child: ChildProcess): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    await exited;
  };
  const names = (): string[] => loadConfig(h.layout.config).workspaces.map((w) => w.name);

  before(async () => {
    mkdirSync(project);
    await h.startDaemon();
  });
  after(async () => {
    for (const c of children) await stop(c);
    await h.cleanup();
  });

  it('serve --name registers the served folder under that name', async () => {
    const s = await serve(['--name', 'api'], project);
    assert.match(s.stderr(), /workspace "api" → .*my-project \(registered\)/, s.stderr());
    const ws = loadConfig(h.layout.config).workspaces.find((w) => w.name === 'api');
    assert.equal(ws?.path, project);
    assert.ok(!names().includes('my-project'), 'not registered under the folder name as well');
    await stop(s.child);
  });

  it('serve --name with a name that is not a workspace name is refused before serving', async () => {
    const r = await h.cli(['serve', '--bind', '127.0.0.1:0', '--name', 'no spaces/please']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--name must be/);
  });

  it('workspace remove is refused while a live session uses the workspace, then unregisters it', async () => {
    const c = h.client();
    const { session } = await c.call('session.open', { principal: 'p', workspace: 'api' });
    const id = session.remote_session_id;
    const refused = await h.cli(['workspace', 'remove', 'api']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, new RegExp(`workspace "api" is used by 1 live session \\(${id}\\); end it first \\(holdfast kill <id>`), refused.stderr);
    assert.ok(names().includes('api'), 'still registered');
    await c.call('session.kill', { id });
    const ok = await h.cli(['workspace', 'remove', 'api']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /removed: api \(was .*my-project; the folder is untouched\)/);
    assert.deepEqual(names(), ['ws'], 'the other workspace stays');
    const again = await h.cli(['workspace', 'remove', 'api']);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /no workspace named "api"; registered: ws/);
    const listed = await h.cli(['workspace', 'list']);
    assert.doesNotMatch(listed.stdout, /^api\t/m);
  });
});
