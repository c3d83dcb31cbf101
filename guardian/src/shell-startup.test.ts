/**
 * How the guardian's shell starts (DESIGN §5, issue 9): the user's files are loaded as a login +
 * interactive bash would load them (so PATH matches a login shell), the user's PROMPT_COMMAND
 * and PS1 keep working next to our markers, and start-up files that hang, wait at a prompt,
 * replace or end the shell are skipped — the fallback still loads /etc/profile and ~/.profile,
 * names the file and says why. A command sent while the files load waits for the prompt, its
 * yield counting from the call. An idle shell survives the user's TMOUT. Each test brings its own
 * HOME (the guardian gets it from the spec, never from the caller's environment).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { G, type CommandRecord, type ExecResult, type GuardianSpec, type GuardianStatus, type TaskRecord } from '@holdfast/shared/protocol';
import { exec, outputOf, run, startGuardian, until } from './spawn-harness.js';

/** A PATH for the guardian; what the machine's /etc/profile makes of it is computed, not assumed. */
const SENTINEL_PATH = '/hf-sentinel-bin:/usr/bin:/bin';
const pathAfterEtcProfile = (): string =>
  execFileSync('bash', ['--noprofile', '--norc', '-c', 'if [ -r /etc/profile ]; then . /etc/profile; fi; printf %s "$PATH"'], { env: { PATH: SENTINEL_PATH, HOME: '/nonexistent' }, encoding: 'utf8' });

/** Starts a guardian whose HOME holds `files`, runs `fn`, shuts it down, checks for leftovers. */
async function withHome(files: Record<string, string>, fn: (g: Awaited<ReturnType<typeof startGuardian>>, home: string) => Promise<void>, spec: Partial<GuardianSpec> = {}): Promise<void> {
  const home = mkdtempSync('/tmp/hfg-home-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, name), text);
  const g = await startGuardian({ ...spec, env: { HOME: home, PATH: SENTINEL_PATH, ...(spec.env ?? {}) } });
  try {
    await fn(g, home);
    const peer = await g.dial();
    await peer.request(G.shutdown, { reason: 'closed' });
    await g.waitGone();
    assert.deepEqual(g.leftovers(), [], 'no process of this guardian is left');
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- guardian.log ---\n${g.logText()}`, { cause: err });
  } finally {
    await g.cleanup();
    rmSync(home, { recursive: true, force: true });
  }
}

describe('shell start-up', { concurrency: 4 }, () => {
  it('loads ~/.profile once and ~/.bashrc once when .profile sources it (Debian layout)', async () => {
    const bin = mkdtempSync('/tmp/hfg-bin-');
    mkdirSync(bin, { recursive: true });
    try {
      await withHome(
        {
          '.profile': `export HF_PROFILE=yes\nif [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi\nPATH="${bin}:$PATH"\n`,
          '.bashrc': `HF_BASHRC=$((HF_BASHRC+1))\nPROMPT_COMMAND='HF_PC=$((HF_PC+1))'\nPS1='custom> '\n`,
        },
        async (g) => {
          const peer = await g.dial();
          const rec = await run(peer, 'c_rc', 'echo "$HF_PROFILE $HF_BASHRC ${PATH%%:*}"');
          assert.equal(await outputOf(peer, rec), `yes 1 ${bin}\r\n`);
          // The user's PROMPT_COMMAND still runs once per prompt, and exit codes still come through.
          const a = await run(peer, 'c_pc1', 'echo $HF_PC');
          const b = await run(peer, 'c_pc2', 'echo $HF_PC; (exit 6)');
          assert.equal(Number(await outputOf(peer, b)) - Number(await outputOf(peer, a)), 1);
          assert.equal(b.exitCode, 6);
          const st = await peer.request<GuardianStatus>(G.status, {});
          assert.equal(st.shell.rcFallback, undefined);
        },
      );
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('prefers ~/.bash_profile and still loads ~/.bashrc when it does not', async () => {
    await withHome(
      {
        '.bash_profile': 'export HF_WHICH=bash_profile\n',
        '.profile': 'export HF_WHICH=profile\n',
        '.bashrc': 'export HF_RC=loaded\n',
      },
      async (g) => {
        const peer = await g.dial();
        const rec = await run(peer, 'c_which', 'echo "$HF_WHICH $HF_RC"');
        assert.equal(await outputOf(peer, rec), 'bash_profile loaded\r\n');
      },
    );
  });

  it('survives a user command that replaces PS1 and PROMPT_COMMAND-free prompts', async () => {
    await withHome({}, async (g) => {
      const peer = await g.dial();
      await run(peer, 'c_ps1', "PS1='$ '");
      const rec = await run(peer, 'c_after_ps1', 'echo still-works');
      assert.equal(await outputOf(peer, rec), 'still-works\r\n');
      assert.equal(rec.exitCode, 0);
    });
  });

  it('falls back at once when the rc files exit the shell, and says so', async () => {
    await withHome({ '.bashrc': 'exit 1\n' }, async (g, home) => {
      const peer = await g.dial();
      const t0 = Date.now();
      const r = await exec(peer, 'c_exit_rc', 'echo alive');
      assert.ok(r.ok && r.cmd.state === 'exited', JSON.stringify(r));
      assert.ok(Date.now() - t0 < 5000, 'no rc timeout needed');
      assert.equal(await outputOf(peer, r.cmd), 'alive\r\n');
      const st = await peer.request<GuardianStatus>(G.status, {});
      assert.equal(st.shell.rcFallback, true);
      assert.deepEqual(st.shell.rcSkipped, { reason: 'exited', file: join(home, '.bashrc'), detail: 'ended the shell before its first prompt (exit code 1)', loaded: 'login' });
      assert.match(r.notice ?? '', /^rc files skipped: .*\.bashrc ended the shell/);
    });
  });

  // Debian's ~/.profile: it loads ~/.bashrc and then adds ~/bin to PATH.
  const DEBIAN_PROFILE = 'export HF_PROFILE=yes\nif [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi\nPATH="$HOME/bin:$PATH"\n';
  const PROBE = 'echo "profile=${HF_PROFILE:-unset} bashrc=${HF_BASHRC:-unset} path=$PATH"';

  it('a .bashrc waiting at read -p is skipped in about a second; /etc/profile and ~/.profile still load', async () => {
    await withHome({ '.profile': DEBIAN_PROFILE, '.bashrc': 'export HF_BASHRC=1\nread -p "passphrase: " pass\n' }, async (g, home) => {
      const peer = await g.dial();
      const t0 = Date.now();
      const r = await exec(peer, 'c_read_rc', PROBE);
      assert.ok(r.ok && r.cmd.state === 'exited', JSON.stringify(r));
      assert.ok(Date.now() - t0 < 5000, `noticed before the 6 s rc timeout (${Date.now() - t0} ms)`);
      assert.equal(await outputOf(peer, r.cmd), `profile=yes bashrc=unset path=${home}/bin:${pathAfterEtcProfile()}\r\n`);
      const st = await peer.request<GuardianStatus>(G.status, {});
      assert.deepEqual(st.shell.rcSkipped, { reason: 'input', file: join(home, '.bashrc'), detail: 'waited for input at "passphrase:"', loaded: 'login' });
      assert.match(r.notice ?? '', /rc files skipped: .*\.bashrc waited for input at "passphrase:", so the shell runs with \/etc\/profile and ~\/\.profile/);
      const again = await exec(peer, 'c_read_rc2', 'true');
      assert.ok(again.ok && again.notice === undefined, 'the notice is given once');
    });
  });

  it('a .bashrc that runs exec /bin/sh -i is skipped at once', async () => {
    await withHome({ '.profile': DEBIAN_PROFILE, '.bashrc': 'export HF_BASHRC=1\nexec /bin/sh -i\n' }, async (g, home) => {
      const peer = await g.dial();
      const t0 = Date.now();
      const r = await exec(peer, 'c_exec_rc', PROBE);
      assert.ok(r.ok && r.cmd.state === 'exited', JSON.stringify(r));
      assert.ok(Date.now() - t0 < 4000, `noticed at once (${Date.now() - t0} ms)`);
      assert.equal(await outputOf(peer, r.cmd), `profile=yes bashrc=unset path=${home}/bin:${pathAfterEtcProfile()}\r\n`);
      const st = await peer.request<GuardianStatus>(G.status, {});
      assert.equal(st.shell.rcSkipped?.reason, 'replaced');
      assert.equal(st.shell.rcSkipped?.file, join(home, '.bashrc'));
      assert.match(st.shell.rcSkipped?.detail ?? '', /^replaced the shell with "\/bin\/sh -i"$/);
    });
  });

  it('a .bashrc that sleeps past the rc timeout is skipped and its sleep killed', async () => {
    await withHome(
      { '.profile': DEBIAN_PROFILE, '.bashrc': 'export HF_BASHRC=1\nsleep 8\n' },
      async (g, home) => {
        const peer = await g.dial();
        const r = await exec(peer, 'c_sleep_rc', PROBE);
        assert.ok(r.ok && r.cmd.state === 'exited', JSON.stringify(r));
        assert.equal(await outputOf(peer, r.cmd), `profile=yes bashrc=unset path=${home}/bin:${pathAfterEtcProfile()}\r\n`);
        const st = await peer.request<GuardianStatus>(G.status, {});
        assert.deepEqual(st.shell.rcSkipped, { reason: 'timeout', file: join(home, '.bashrc'), detail: 'did not reach a prompt within 1.5 s (still running: sleep 8)', loaded: 'login' });
        assert.equal(g.leftovers().some((p) => p.cmd === 'sleep 8'), false, 'the sleeping rc was killed');
      },
      { rcTimeoutMs: 1500 },
    );
  });

  it('when the fallback hangs too, the shell starts with nothing of the user and says which files', async () => {
    await withHome(
      {
        // The profile hangs only the second time it is loaded: by then it is the login fallback.
        '.profile': 'export HF_PROFILE=yes\n[ -e "$HOME/.ran" ] && sleep 30\ntouch "$HOME/.ran"\n. "$HOME/.bashrc"\n',
        '.bashrc': 'sleep 31\n',
      },
      async (g, home) => {
        const peer = await g.dial();
        const r = await exec(peer, 'c_bare', PROBE, 20000);
        assert.ok(r.ok && r.cmd.state === 'exited', JSON.stringify(r));
        assert.equal(await outputOf(peer, r.cmd), `profile=unset bashrc=unset path=${SENTINEL_PATH}\r\n`);
        const st = await peer.request<GuardianStatus>(G.status, {});
        assert.equal(st.shell.rcSkipped?.file, join(home, '.bashrc'));
        assert.equal(st.shell.rcSkipped?.loaded, 'none');
        assert.match(st.shell.rcSkipped?.detail ?? '', /sleep 31.*; without them .*\/\.profile did not reach a prompt within 1 s \(still running: sleep 30\) too$/);
        assert.match(r.notice ?? '', /the shell runs without any start-up file/);
      },
      { rcTimeoutMs: 1000 },
    );
  });

  it('a command sent while the rc files load is queued: the yield counts from the call, stop and cancel keep it from ever running', async () => {
    await withHome(
      { '.bashrc': 'sleep 2\n' },
      async (g, home) => {
        const peer = await g.dial();
        const t0 = Date.now();
        const r = await exec(peer, 'c_cold', 'echo "cold start"', 600);
        const took = Date.now() - t0;
        assert.ok(r.ok && r.cmd.state === 'running' && r.cmd.queued === true, JSON.stringify(r));
        assert.ok(took < 1500, `answered after its yield, not after the shell's start-up (${took} ms)`);
        const busy = await exec(peer, 'c_cold2', 'true', 0);
        assert.deepEqual([busy.ok, !busy.ok && busy.reason], [false, 'command_already_running']);
        const done = await peer.request<CommandRecord>(G.wait, { id: 'c_cold', waitMs: 10000 }, { deadlineMs: 15000 });
        assert.equal(done.exitCode, 0);
        assert.equal(await outputOf(peer, done), 'cold start\r\n');

        // Stopped while queued: never typed.
        await peer.request(G.resetShell, {}, { deadlineMs: 15000 });
        const q = await exec(peer, 'c_stopped', 'touch stopped-ran', 0);
        assert.ok(q.ok && q.cmd.queued === true, JSON.stringify(q));
        const stopped = await peer.request<CommandRecord>(G.stop, { id: 'c_stopped' });
        assert.deepEqual([stopped.state, stopped.notStarted], ['exited', 'stopped']);

        // The call aborted while queued: never typed either.
        const ac = new AbortController();
        const pending = peer.request<ExecResult>(G.exec, { id: 'c_cancelled', command: 'touch cancelled-ran', waitMs: 10000 }, { deadlineMs: 15000, signal: ac.signal });
        await until('the cancelled command to be queued', 5000, async () => (await peer.request<GuardianStatus>(G.status, {})).foreground?.id === 'c_cancelled');
        ac.abort();
        await assert.rejects(pending, /cancelled/);
        const cancelled = await until('the cancelled record', 5000, async () => {
          const rec = await peer.request<CommandRecord>(G.wait, { id: 'c_cancelled', waitMs: 0 });
          return rec.state === 'exited' ? rec : null;
        });
        assert.equal(cancelled.notStarted, 'cancelled');
        await run(peer, 'c_after', 'true', 15000);
        assert.equal(existsSync(join(g.dir, 'stopped-ran')) || existsSync(join(g.dir, 'cancelled-ran')), false, 'neither command ran');
        assert.equal(existsSync(join(home, 'stopped-ran')) || existsSync(join(home, 'cancelled-ran')), false);
      },
      { rcTimeoutMs: 10000 },
    );
  });

  it('TMOUT=4 in ~/.bashrc: 7 s idle and the same shell still answers', async () => {
    await withHome({ '.bashrc': 'TMOUT=4\n' }, async (g) => {
      const peer = await g.dial();
      await run(peer, 'c_tm1', 'cd /tmp');
      const pid = (await peer.request<GuardianStatus>(G.status, {})).shell.pid;
      const until7 = Date.now() + 7000;
      while (Date.now() < until7) {
        const st = await peer.request<GuardianStatus>(G.status, {});
        assert.deepEqual([st.shell.pid, st.shell.alive], [pid, true], 'the shell is still the same one');
        await new Promise((r) => setTimeout(r, 250));
      }
      const r = await exec(peer, 'c_tm2', 'echo "tmout=${TMOUT-unset} $PWD"');
      assert.ok(r.ok && r.notice === undefined);
      assert.equal(await outputOf(peer, r.cmd), 'tmout=unset /tmp\r\n');
      assert.equal((await peer.request<GuardianStatus>(G.status, {})).shell.pid, pid);
    });
  });

  it('a read-only TMOUT logs the shell out: a new shell starts, tasks survive, the next result says why', async () => {
    await withHome({ '.bashrc': 'TMOUT=2; readonly TMOUT\n' }, async (g) => {
      const peer = await g.dial();
      await run(peer, 'c_ro1', 'cd /tmp');
      const before = await peer.request<GuardianStatus>(G.status, {});
      const task = await peer.request<TaskRecord>(G.spawn, { id: 't_ro', argv: ['sleep', '60'] });
      const st = await until('the idle logout and a new shell', 10000, async () => {
        const s = await peer.request<GuardianStatus>(G.status, {});
        return s.shell.pid !== before.shell.pid && s.shell.ready ? s : null;
      });
      assert.equal(st.shell.restarted?.reason, 'idle_logout');
      assert.ok(st.clock.lastPtyActivityAt <= st.shell.restarted!.at - 1000, 'neither the logout message nor the new shell\'s start-up is activity');
      const r = await exec(peer, 'c_ro2', 'pwd');
      assert.ok(r.ok && r.cmd.exitCode === 0, JSON.stringify(r));
      assert.notEqual((await outputOf(peer, r.cmd)).trim(), '/tmp', 'a new shell: the old cwd is gone');
      assert.match(r.notice ?? '', /logged itself out after 2 s without input \(TMOUT=2 is read-only here.*holdfast started a new shell/);
      const t = (await peer.request<GuardianStatus>(G.status, {})).tasks.find((x) => x.id === task.id);
      assert.equal(t?.state, 'running', 'background tasks survive');
      await peer.request(G.stop, { id: 't_ro' });
    });
  });
});
