import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_MAIN, DAEMON_MAIN, isAlive, pollUntil, TestHome } from './_harness/home.js';
import { canCreateUsers, createUser, removeUser, runAs, spawnAs, type TestUser } from './_harness/users.js';

/**
 * Issue 18 item 1: the relocated socket folder taken over by another user. With a long
 * HOLDFAST_HOME and no XDG_RUNTIME_DIR the sockets live in the predictable
 * `/tmp/holdfast-<uid>/<hash>`; a folder another user created first is refused at start, a client
 * sends nothing to a socket it did not bind, and a guardian manifest without a start time is never
 * acted on (it made holdfastd kill any process).
 */

/** A HOLDFAST_HOME long enough that its sockets move to /tmp/holdfast-<uid>/<hash>. */
function longHome(base: string): string {
  const home = join(base, 'h'.repeat(90));
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

/** Where homeLayout puts the run folder of `home` for `uid` without XDG_RUNTIME_DIR. */
function relocatedRunDir(home: string, uid: number): string {
  return join(`/tmp/holdfast-${uid}`, createHash('sha256').update(home).digest('hex').slice(0, 12));
}

/** The environment of the victim's processes: its home, no XDG_RUNTIME_DIR. */
function victimEnv(home: string, userHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOLDFAST_HOME: home, HOME: userHome };
  delete env.XDG_RUNTIME_DIR;
  return env;
}

describe('a run folder planted by another user (issue 18)', { skip: canCreateUsers() ? false : 'needs root to create throwaway users' }, () => {
  let victim: TestUser;
  let attacker: TestUser;
  let base: string;
  let home: string;
  let userHome: string;
  let runDir: string;
  let fake: ChildProcess | null = null;
  before(() => {
    victim = createUser('hf18v');
    attacker = createUser('hf18a');
    base = mkdtempSync('/tmp/hf18-run-');
    chmodSync(base, 0o755);
    home = longHome(base);
    userHome = join(base, 'user');
    mkdirSync(userHome, { mode: 0o700 });
    for (const d of [base, join(base, 'h'.repeat(90)), userHome]) chownSync(d, victim.uid, victim.gid);
    runDir = relocatedRunDir(home, victim.uid);
    // The attacker creates the victim's predictable run folder first, open to everyone.
    for (const d of [`/tmp/holdfast-${victim.uid}`, runDir]) {
      mkdirSync(d, { recursive: true });
      chownSync(d, attacker.uid, attacker.gid);
      chmodSync(d, 0o777);
    }
  });
  after(() => {
    fake?.kill('SIGKILL');
    rmSync(`/tmp/holdfast-${victim.uid}`, { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
    removeUser(victim);
    removeUser(attacker);
  });

  it('holdfastd refuses to start with a clear error and binds nothing there', async () => {
    const r = await runAs(victim, process.execPath, [DAEMON_MAIN, 'run', '--home', home], { env: victimEnv(home, userHome), timeoutMs: 15_000 });
    assert.equal(r.timedOut, false, 'the daemon started in the attacker\'s folder');
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /refusing to use the run folder/);
    assert.match(r.stderr, new RegExp(`belongs to uid ${attacker.uid}`));
    assert.equal(existsSync(join(runDir, 'daemon.sock')), false);
    assert.equal(existsSync(join(runDir, 'daemon.pid')), false);
  });

  it('a client sends nothing to a daemon socket the attacker bound there', async () => {
    // The attacker's fake daemon: prints how many bytes any client sent it.
    const script = `
      const net = require('node:net');
      const fs = require('node:fs');
      const path = process.argv[1];
      fs.rmSync(path, { force: true });
      const srv = net.createServer((s) => s.on('data', (d) => process.stdout.write('got ' + d.length + '\\n')));
      srv.listen(path, () => { fs.chmodSync(path, 0o777); process.stdout.write('listening\\n'); });
    `;
    const child = spawnAs(attacker, process.execPath, ['-e', script, join(runDir, 'daemon.sock')], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    fake = child;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await pollUntil('the fake daemon to listen', () => out.includes('listening'), 10_000);

    const r = await runAs(victim, process.execPath, [CLI_MAIN, 'list'], { env: victimEnv(home, userHome), timeoutMs: 15_000 });
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, /refusing to use the run folder/);
    // Give a message in flight the time to arrive, then check nothing did.
    await new Promise((res) => setTimeout(res, 200));
    assert.doesNotMatch(out, /got \d+/, 'the client sent bytes to the attacker\'s socket');
    child.kill('SIGKILL');
    await pollUntil('the fake daemon to end', () => !isAlive(child.pid!), 5000);
    fake = null;
  });
});

describe('guardian manifests without a verifiable start time (issue 18)', () => {
  const h = new TestHome();
  let bystander: ChildProcess;
  before(() => {
    bystander = spawn('sleep', ['300'], { stdio: 'ignore' });
  });
  after(async () => {
    bystander.kill('SIGKILL');
    await h.cleanup();
  });

  it('holdfastd never kills the pid a manifest without a start time names', async () => {
    mkdirSync(h.layout.guardianDir, { recursive: true, mode: 0o700 });
    const gid = 'rs_01J00000000000000000000000';
    const planted = join(h.layout.guardianDir, `${gid}.json`);
    const manifest = { schema: 1, gid, pid: bystander.pid, startTime: null, shellPid: bystander.pid, socketPath: join(h.layout.guardianDir, `${gid}.sock`), proto: 1, build: 'x', bundlePath: '/nowhere', createdAt: Date.now() };
    writeFileSync(planted, JSON.stringify(manifest), { mode: 0o600 });
    // One more naming a live pid with a start time that is not its own.
    const gid2 = 'rs_01J00000000000000000000001';
    writeFileSync(join(h.layout.guardianDir, `${gid2}.json`), JSON.stringify({ ...manifest, gid: gid2, startTime: '1' }), { mode: 0o600 });
    await h.startDaemon();
    await pollUntil('the planted manifests to be cleared', () => !existsSync(planted) && !existsSync(join(h.layout.guardianDir, `${gid2}.json`)), 10_000);
    assert.equal(isAlive(bystander.pid!), true, 'holdfastd killed a process a manifest without a start time named');
  });
});
