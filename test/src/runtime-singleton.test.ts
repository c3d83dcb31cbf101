import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DAEMON_MAIN, pollUntil, TestHome } from './_harness/home.js';

/**
 * Singleton start (DESIGN §4.5, issue 2): one holdfastd per home. A second `daemon run` is refused
 * with a one-line error; the adapter's auto-start (`--if-absent`) finding one already serving is not
 * a failure; several clients starting the daemon at once end with exactly one.
 */
describe('one holdfastd per home (DESIGN §4.5)', () => {
  const h = new TestHome();
  after(() => h.cleanup());

  function runDaemon(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [DAEMON_MAIN, 'run', '--home', h.home, ...args], { env: h.env(), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
  }

  describe('with a daemon running', () => {
    let pid = 0;
    before(async () => {
      pid = await h.startDaemon();
    });

    it('`holdfast daemon run` is refused with one line naming the running daemon, and it keeps serving', async () => {
      const r = await h.cli(['daemon', 'run']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`holdfastd: another holdfastd \\(pid ${pid}\\) already serves`));
      assert.equal(h.daemonPid(), pid, 'the pid file still names the first daemon');
      assert.equal((await h.client().call('daemon.status', {})).pid, pid);
    });

    it('an auto-start (--if-absent) that finds it running exits 0 and logs at info, not error', async () => {
      const r = await runDaemon(['--if-absent']);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string });
      assert.ok(lines.some((l) => l.level === 'info' && /already serves this home/.test(l.msg)), r.stderr);
      assert.ok(!lines.some((l) => l.level === 'error'), r.stderr);
      assert.equal((await h.client().call('daemon.status', {})).pid, pid);
    });
  });

  it('four clients starting the daemon at once leave exactly one running', async () => {
    const stop = await h.cli(['daemon', 'stop']);
    assert.equal(stop.code, 0, stop.stderr);
    await pollUntil('the daemon to stop', () => h.daemonPid() === null, 10_000);
    // `workspace register` auto-starts the daemon when none answers (as the adapter does).
    const runs = await Promise.all([1, 2, 3, 4].map(() => h.cli(['workspace', 'register', h.workspace])));
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    // The starts that lost the lock race exit by themselves.
    const daemons = (): { pid: number; cmd: string }[] => h.processes().filter((p) => p.cmd.includes('daemon/dist/main.js'));
    await pollUntil('the losing starts to exit', () => daemons().length === 1, 10_000).catch(() => assert.fail(JSON.stringify(daemons())));
    assert.equal(daemons()[0]!.pid, h.daemonPid());
    assert.doesNotMatch(readFileSync(h.layout.daemonLog, 'utf8'), /"level":"error"/);
  });
});
