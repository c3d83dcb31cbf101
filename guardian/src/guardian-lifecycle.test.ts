/**
 * Life of a guardian process (DESIGN §4.4, §4.5, §5): manifest and handshake, reset_shell, the
 * rc-file fallback, and every way a session ends — g.shutdown (orphaned grandchildren included),
 * SIGTERM, the shell exiting by itself, the orphan timer. Real guardian processes from the bundle;
 * every test checks the process table afterwards.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  G,
  GEvents,
  GUARDIAN_FEATURES,
  ProtocolVersions,
  type CommandRecord,
  type ExitRecord,
  type GuardianManifest,
  type GuardianStatus,
  type TaskRecord,
} from '@holdfast/shared/protocol';
import { BUNDLE, exec, outputOf, processWithCmdline, run, startGuardian, until, type StartedGuardian } from './spawn-harness.js';

async function withGuardian(fn: (g: StartedGuardian) => Promise<void>, over: Parameters<typeof startGuardian>[0] = {}): Promise<void> {
  const g = await startGuardian(over);
  try {
    await fn(g);
    await g.waitGone(15000);
    assert.deepEqual(g.leftovers(), [], 'no process of this guardian is left');
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- guardian.log ---\n${g.logText()}`, { cause: err });
  } finally {
    await g.cleanup();
  }
}

const readExit = (g: StartedGuardian): ExitRecord => JSON.parse(readFileSync(join(g.spec.sessionDir, 'exit.json'), 'utf8')) as ExitRecord;

describe('guardian lifecycle', { concurrency: 4 }, () => {
  it('writes its manifest, answers hello with its features and refuses another protocol', async () => {
    await withGuardian(async (g) => {
      const m: GuardianManifest = g.manifest;
      assert.equal(m.pid, g.pid);
      assert.equal(m.gid, g.spec.gid);
      assert.equal(m.proto, ProtocolVersions.GUARDIAN);
      assert.equal(m.socketPath, g.spec.socketPath);
      assert.ok(m.startTime && /^\d+$/.test(m.startTime));
      assert.ok(m.shellPid > 0);
      assert.ok(m.bundlePath.endsWith('guardian.mjs') && m.bundlePath.startsWith('/'));
      assert.equal((m as GuardianManifest & { daemonBuild?: string }).daemonBuild, 'test');
      assert.equal(statSync(g.spec.socketPath).mode & 0o777, 0o600);
      assert.equal(statSync(g.spec.manifestPath).mode & 0o777, 0o600);
      assert.equal(statSync(g.spec.sessionDir).mode & 0o777, 0o700);

      await assert.rejects(g.dial({ proto: ProtocolVersions.GUARDIAN + 41 }), { code: 'PROTOCOL_VERSION' });
      await assert.rejects(g.dial({ role: 'adapter' }), { code: 'BAD_REQUEST' });

      const peer = await g.dial({ role: 'daemon' });
      assert.deepEqual(peer.remote?.features, [...GUARDIAN_FEATURES]);
      await until('the first prompt', 10000, async () => (await peer.request<GuardianStatus>(G.status, {})).shell.ready);
      assert.equal(peer.remote?.proto, ProtocolVersions.GUARDIAN);
      const second = await g.dial({ role: 'daemon' }); // a restart handoff: two daemons at once
      const st = await peer.request<GuardianStatus>(G.status, {});
      assert.equal(st.daemonConnections, 2);
      assert.equal(st.pid, g.pid);
      assert.equal(st.shell.pid, m.shellPid);
      assert.equal(st.clock.everExecuted, false);
      assert.deepEqual(await second.request(G.bye, {}), { ok: true });
      second.close();
      await until('one daemon connection', 3000, async () => (await peer.request<GuardianStatus>(G.status, {})).daemonConnections === 1);
      await peer.request(G.shutdown, { reason: 'closed' });
      await g.waitGone();
      assert.equal(existsSync(g.spec.socketPath), false, 'socket unlinked');
      assert.equal(readExit(g).reason, 'closed');
    });
  });

  it('a second guardian for the same socket refuses to start; the first keeps serving', async () => {
    await withGuardian(async (g) => {
      const spec2 = { ...g.spec, manifestPath: join(g.dir, 'run', 'second.json'), sessionDir: join(g.dir, 's2') };
      const specPath = join(g.dir, 'spec2.json');
      writeFileSync(specPath, JSON.stringify(spec2));
      const logFd = openSync(join(g.dir, 'second.log'), 'a');
      const [k, v] = g.marker.split('=') as [string, string];
      const child = spawn(process.execPath, [BUNDLE, '--spec', specPath], { stdio: ['ignore', logFd, logFd], env: { ...process.env, [k]: v } });
      closeSync(logFd);
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      assert.equal(code, 1);
      assert.match(readFileSync(join(g.dir, 'second.log'), 'utf8'), /another guardian owns this session/);
      assert.equal(existsSync(spec2.manifestPath), false);
      const peer = await g.dial();
      assert.equal((await peer.request<GuardianStatus>(G.status, {})).pid, g.pid);
      await peer.request(G.shutdown, { reason: 'closed' });
    });
  });

  it('refuses a bad command line or spec with exit code 2', async () => {
    const dir = mkdtempSync('/tmp/hfg-');
    try {
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ schema: 2 }));
      for (const args of [[], ['--spec', join(dir, 'missing.json')], ['--spec', join(dir, 'bad.json')]]) {
        const child = spawn(process.execPath, [BUNDLE, ...args], { stdio: 'ignore' });
        assert.equal(await new Promise((r) => child.once('exit', (c) => r(c))), 2);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shutdown kills an orphaned grandchild of the shell (python-spawned sleep 1000)', async () => {
    await withGuardian(async (g) => {
      const peer = await g.dial();
      const rec = await run(peer, 'c_py', `python3 -c "import subprocess; subprocess.Popen(['sleep','1000'])"`);
      assert.equal(rec.exitCode, 0);
      const sleeper = await until('sleep 1000 of this guardian', 5000, () => g.leftovers().find((p) => p.cmd === 'sleep 1000'));
      const task = await peer.request<TaskRecord>(G.spawn, { id: 't_sleep', command: 'sleep 1000 & sleep 1000' });
      assert.equal(task.state, 'running');
      const ex = await peer.request<ExitRecord>(G.shutdown, { reason: 'killed' });
      assert.equal(ex.reason, 'killed');
      assert.ok(ex.finalOffsets.pty > 0);
      assert.ok('t_sleep' in ex.finalOffsets.tasks);
      await g.waitGone();
      assert.equal(existsSync(`/proc/${sleeper.pid}`) && !readFileSync(`/proc/${sleeper.pid}/stat`, 'latin1').includes(') Z'), false, 'the orphaned sleep is gone');
      assert.deepEqual(g.leftovers(), []);
      assert.deepEqual(readExit(g).reason, 'killed');
    });
  });

  it('the shell exiting with 7 writes exit.json with code 7, emits g.exit and ends the guardian', async () => {
    await withGuardian(async (g) => {
      const peer = await g.dial({ role: 'daemon' });
      const exits: ExitRecord[] = [];
      peer.on('event', (ev, d) => {
        if (ev === GEvents.exit) exits.push(d as ExitRecord);
      });
      await run(peer, 'c_bg', 'sleep 1001 &');
      const r = await exec(peer, 'c_exit', 'exit 7', 10000).catch((e: Error) => e);
      if (!(r instanceof Error)) {
        assert.ok(r.ok);
        assert.equal((r.cmd as CommandRecord).exitCode, 7);
      }
      await until('g.exit', 5000, () => exits.length > 0);
      assert.equal(exits[0]!.reason, 'shell_exit');
      assert.equal(exits[0]!.code, 7);
      const rec = readExit(g);
      assert.equal(rec.reason, 'shell_exit');
      assert.equal(rec.code, 7);
      peer.close();
      await g.waitGone();
      assert.equal(processWithCmdline('sleep 1001').filter((pid) => g.leftovers().some((l) => l.pid === pid)).length, 0);
      assert.ok(existsSync(g.spec.manifestPath), 'the manifest is left for the daemon');
    });
  });

  it('without any connection, a shell exit ends the guardian at once', async () => {
    await withGuardian(async (g) => {
      const peer = await g.dial();
      await run(peer, 'c_ready', 'true');
      peer.close();
      // Type `exit 5` through a second, short-lived connection, then go away.
      const p2 = await g.dial();
      await p2.request(G.input, { text: 'exit 5', keys: ['Enter'] });
      p2.close();
      await g.waitGone(8000);
      assert.equal(readExit(g).code, 5);
    });
  });

  it('SIGTERM ends the session with reason signal', async () => {
    await withGuardian(async (g) => {
      const peer = await g.dial();
      await run(peer, 'c_ready', 'sleep 1002 &');
      process.kill(g.pid, 'SIGTERM');
      await g.waitGone();
      assert.equal(readExit(g).reason, 'signal');
    });
  });

  it('ends itself after orphanTimeoutS without a daemon connection', async () => {
    await withGuardian(
      async (g) => {
        // A daemon connection holds it …
        const peer = await g.dial({ role: 'daemon' });
        await new Promise((r) => setTimeout(r, 2500)); // longer than the orphan timeout: must survive
        assert.equal((await peer.request<GuardianStatus>(G.status, {})).pid, g.pid);
        peer.close();
        // … and without one it ends within the timeout (plus kill escalation).
        const t0 = Date.now();
        await g.waitGone(10000);
        assert.ok(Date.now() - t0 >= 1500, 'not before the timeout');
        assert.equal(readExit(g).reason, 'orphan');
      },
      { orphanTimeoutS: 2 },
    );
  });

  it('reset_shell starts a fresh shell: generation 2, new pid, offsets continue, tasks untouched', async () => {
    await withGuardian(async (g) => {
      const peer = await g.dial();
      await run(peer, 'c_cd', 'cd /tmp && export HF_GONE=1');
      const task = await peer.request<TaskRecord>(G.spawn, { id: 't_keep', argv: ['sleep', '30'] });
      const before = await peer.request<GuardianStatus>(G.status, {});
      const after = await peer.request<GuardianStatus>(G.resetShell, {}, { deadlineMs: 15000 });
      assert.equal(after.shell.generation, 2);
      assert.notEqual(after.shell.pid, before.shell.pid);
      assert.ok(after.pty.end >= before.pty.end);
      const rec = await run(peer, 'c_after', 'echo "gone=${HF_GONE:-no}"; pwd');
      assert.equal(await outputOf(peer, rec), `gone=no\r\n${g.spec.cwd}\r\n`);
      assert.ok(rec.outputStart >= before.pty.end);
      const st = await peer.request<GuardianStatus>(G.status, {});
      assert.equal(st.tasks.find((t) => t.id === 't_keep')?.state, 'running');
      assert.equal(existsSync(`/proc/${task.pid}`), true);
      const m = JSON.parse(readFileSync(g.spec.manifestPath, 'utf8')) as GuardianManifest;
      assert.equal(m.shellPid, after.shell.pid);
      await peer.request(G.shutdown, { reason: 'closed' });
    });
  });

  it('a running command and its output survive the daemon going away and a new one connecting', async () => {
    await withGuardian(async (g) => {
      const a = await g.dial({ role: 'daemon' });
      const before = await a.request<GuardianStatus>(G.status, {});
      const r = await exec(a, 'c_handoff', 'sleep 0.6; echo survived', 100);
      assert.ok(r.ok && r.cmd.state === 'running');
      await a.request(G.bye, {});
      a.close();
      const b = await g.dial({ role: 'daemon' });
      const done = await b.request<CommandRecord>(G.wait, { id: 'c_handoff', waitMs: 5000 });
      assert.equal(done.exitCode, 0);
      assert.equal(await outputOf(b, done), 'survived\r\n');
      const after = await b.request<GuardianStatus>(G.status, {});
      assert.equal(after.shell.pid, before.shell.pid);
      assert.equal(after.shell.generation, 1);
      await b.request(G.shutdown, { reason: 'closed' });
    });
  });

  it('keeps working when its stderr is a closed pipe (EPIPE on every log line)', async () => {
    const g = await startGuardian({}, { closedStdio: true });
    try {
      const peer = await g.dial();
      const rec = await run(peer, 'c_epipe', 'echo still-here');
      assert.equal(await outputOf(peer, rec), 'still-here\r\n');
      await peer.request(G.shutdown, { reason: 'closed' });
      await g.waitGone();
      assert.equal(readExit(g).reason, 'closed');
      assert.deepEqual(g.leftovers(), []);
    } finally {
      await g.cleanup();
    }
  });

  it('prints the idle RSS of a guardian (informational)', async () => {
    await withGuardian(async (g) => {
      const peer = await g.dial();
      await run(peer, 'c_ready', 'true');
      await new Promise((r) => setTimeout(r, 1000));
      const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${g.pid}/status`, 'utf8'))![1]) / 1024;
      const idle = rss();
      await peer.request(G.snapshot, {});
      const afterSnapshot = rss();
      console.log(`# guardian idle RSS ${idle.toFixed(1)} MB; after a snapshot ${afterSnapshot.toFixed(1)} MB`);
      await peer.request(G.shutdown, { reason: 'closed' });
    });
  });
});
