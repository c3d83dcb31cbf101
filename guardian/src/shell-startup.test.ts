/**
 * How the guardian's shell starts (DESIGN §5): the user's files are loaded as a login +
 * interactive bash would load them (so PATH matches a login shell), the user's PROMPT_COMMAND
 * and PS1 keep working next to our markers, and broken rc files (hanging or exiting) fall back
 * to `--norc` with the integration only. Each test brings its own HOME.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { G, type ExecResult, type GuardianStatus } from '@holdfast/shared/protocol';
import { outputOf, run, startGuardian } from './spawn-harness.js';

/** Starts a guardian whose HOME holds `files`, runs `fn`, shuts it down, checks for leftovers. */
async function withHome(files: Record<string, string>, fn: (g: Awaited<ReturnType<typeof startGuardian>>) => Promise<void>): Promise<void> {
  const home = mkdtempSync('/tmp/hfg-home-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, name), text);
  const g = await startGuardian({ env: { HOME: home } });
  try {
    await fn(g);
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

  it('falls back to --norc when the rc files hang', async () => {
    await withHome({ '.bash_profile': 'export HF_RC_RAN=1\nsleep 1003\n' }, async (g) => {
      const peer = await g.dial();
      const r = await peer.request<ExecResult>(G.exec, { id: 'c_fb', command: 'echo "rc=${HF_RC_RAN:-none}"', waitMs: 15000 }, { deadlineMs: 30000 });
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(await outputOf(peer, r.cmd), 'rc=none\r\n');
      const st = await peer.request<GuardianStatus>(G.status, {});
      assert.equal(st.shell.rcFallback, true);
      assert.equal(st.shell.generation, 1);
      assert.equal(g.leftovers().some((p) => p.cmd === 'sleep 1003'), false, 'the hanging rc was killed');
    });
  });

  it('falls back at once when the rc files exit the shell', async () => {
    await withHome({ '.bashrc': 'exit 1\n' }, async (g) => {
      const peer = await g.dial();
      const t0 = Date.now();
      const rec = await run(peer, 'c_exit_rc', 'echo alive');
      assert.ok(Date.now() - t0 < 5000, 'no rc timeout needed');
      assert.equal(await outputOf(peer, rec), 'alive\r\n');
      assert.equal((await peer.request<GuardianStatus>(G.status, {})).shell.rcFallback, true);
    });
  });
});
