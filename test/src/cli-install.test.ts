import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '@holdfast/shared/config';
import { isAlive, pollUntil, processesWithEnv, REPO_ROOT, runCommand, TestHome } from './_harness/home.js';

/**
 * Issue 8 items 2, 3 and 10 (CLI side): the `holdfast` and `holdfastd` commands as a Node user
 * gets them — `npm install -g` of the checkout into a temporary prefix (what `npm link` does),
 * and `npx holdfast` inside the checkout — and `holdfast serve` run in another folder, which
 * serves that folder. A refused start (port in use) leaves no daemon it started; a runtime home
 * made beforehand with mode 0755 is made private, with a warning.
 */

const exec = runCommand;

/** Starts a long-running command and resolves once its stdout matches `ready`. */
function startUntil(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string> }, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray; stderr: () => string }> {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} did not get ready within 30 s; stderr: ${err}`));
    }, 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, stderr: () => err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited (${code}) before it was ready; stderr: ${err}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  await exited;
}

describe('holdfast on PATH and serving another folder (issue 8)', () => {
  const h = new TestHome();
  const prefix = mkdtempSync('/tmp/hf-prefix-');
  const bin = (name: string): string => join(prefix, 'bin', name);
  const project = join(h.home, 'my-project');
  const env = (extra: Record<string, string> = {}): Record<string, string> => h.env({ PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false', ...extra });
  const children: ChildProcess[] = [];

  before(async () => {
    mkdirSync(project);
    // What `npm link` / `npm install -g .` in the checkout does, into a prefix of our own. A folder
    // is installed as a link and needs nothing from the registry: --offline keeps a slow or
    // unreachable registry out of the test.
    const r = await exec('npm', ['install', '-g', '--offline', '--prefix', prefix, '--no-audit', '--no-fund', REPO_ROOT], { env: env(), timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    for (const c of children) await stop(c);
    await h.cleanup();
    rmSync(prefix, { recursive: true, force: true });
  });

  it('npm install -g links holdfast and holdfastd, which run the built checkout', async () => {
    assert.ok(existsSync(bin('holdfast')) && existsSync(bin('holdfastd')));
    assert.equal(realpathSync(bin('holdfast')), join(REPO_ROOT, 'adapter', 'bin', 'holdfast.js'));
    const v = await exec('holdfast', ['--version'], { env: env() });
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /^\d+\.\d+\.\d+\+/);
    const usage = await exec('holdfastd', ['bogus'], { env: env() });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /usage: holdfastd/);
  });

  it('npx holdfast works inside the checkout (the bin npm ci linked)', async () => {
    const r = await exec('npx', ['--no-install', 'holdfast', '--version'], { cwd: REPO_ROOT, env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\d+\.\d+\.\d+\+/);
  });

  it('holdfast doctor without a daemon says why once', async () => {
    const r = await exec('holdfast', ['doctor'], { env: env() });
    assert.equal(r.code, 1);
    const line = r.stdout.split('\n').find((l) => l.includes('daemon:'))!;
    assert.equal(line.split('is not reachable').length - 1, 1, line);
  });

  it('holdfast serve in a project folder registers and serves it; holdfast list talks to its daemon', async () => {
    const serve = await startUntil('holdfast', ['serve', '--bind', '127.0.0.1:0'], { cwd: project, env: env() }, /serving MCP at (http:\/\/\S+)/);
    children.push(serve.child);
    assert.match(serve.stderr(), /workspace "my-project" → .*my-project \(registered\)/);
    const cfg = loadConfig(h.layout.config);
    assert.ok(cfg.workspaces.some((w) => w.name === 'my-project' && w.path === project), JSON.stringify(cfg.workspaces));
    const list = await exec('holdfast', ['list'], { env: env() });
    assert.equal(list.code, 0, list.stderr);
    const status = await exec('holdfast', ['daemon', 'status'], { env: env() });
    assert.match(status.stdout, /holdfastd running: pid \d+/);
    await stop(serve.child);
    // The npm start form from the checkout: INIT_CWD is where the user typed it.
    const other = join(h.home, 'second-project');
    mkdirSync(other);
    const again = await startUntil('holdfast', ['serve', '--bind', '127.0.0.1:0'], { cwd: REPO_ROOT, env: env({ INIT_CWD: other }) }, /serving MCP at/);
    children.push(again.child);
    assert.match(again.stderr(), /workspace "second-project"/);
    await stop(again.child);
  });

  it('a refused start (port in use) leaves no daemon it started behind', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const fresh = new TestHome();
    try {
      const r = await exec('holdfast', ['serve', '--bind', `127.0.0.1:${port}`], { cwd: project, env: { ...fresh.env(), PATH: env().PATH! } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /EADDRINUSE|in use/i, r.stderr);
      assert.equal(fresh.daemonPid(), null, 'no daemon pid file');
      assert.deepEqual(processesWithEnv(fresh.envMarker).filter((p) => p.cmd.includes('daemon')), []);
    } finally {
      blocker.close();
      await fresh.cleanup();
    }
  });

  it('holdfastd runs the daemon in the foreground; a home made with mode 0755 is made private with a warning', async () => {
    const loose = new TestHome();
    try {
      // A home made beforehand, readable by everyone.
      chmodSync(loose.home, 0o755);
      const d = spawn(bin('holdfastd'), ['run', '--home', loose.home], { env: { ...loose.env(), PATH: env().PATH! }, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(d);
      let err = '';
      d.stderr!.on('data', (x: Buffer) => (err += x.toString()));
      await pollUntil('holdfastd to answer', async () => (await exec('holdfast', ['daemon', 'status'], { env: { ...loose.env(), PATH: env().PATH! } })).code === 0, 20_000);
      assert.equal(statSync(loose.home).mode & 0o777, 0o700);
      assert.match(err, /was mode 0755.*set it to 0700/);
      const pid = loose.daemonPid()!;
      const stopped = await exec('holdfast', ['daemon', 'stop'], { env: { ...loose.env(), PATH: env().PATH! } });
      assert.equal(stopped.code, 0, stopped.stderr);
      await pollUntil('holdfastd to exit', () => !isAlive(pid), 10_000);
    } finally {
      await loose.cleanup();
    }
  });
});
