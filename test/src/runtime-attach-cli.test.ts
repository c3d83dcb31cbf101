import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CLI_MAIN, pollUntil, TestHome } from './_harness/home.js';

describe('holdfast attach --follow (DESIGN §7)', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('through a pipe: prints the current screen, then live output; detaching leaves the session running', async () => {
    const c = h.client();
    const { session } = await c.call('session.open', { principal: 'p', workspace: 'ws' });
    const id = session.remote_session_id;
    await c.call('session.exec', { id, command: 'echo SCREEN-MARK', wait_ms: 10_000 });

    const follower = spawn(process.execPath, [CLI_MAIN, 'attach', id, '--follow'], { env: h.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    follower.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await pollUntil('the screen with SCREEN-MARK', () => out.includes('SCREEN-MARK'), 10_000);
      await c.call('session.exec', { id, command: 'for i in 1 2 3; do echo LIVE-$i; done', wait_ms: 10_000 });
      await pollUntil('live output', () => out.includes('LIVE-3'), 10_000);
      follower.kill('SIGINT');
      await pollUntil('the follower to exit', () => follower.exitCode !== null, 5000);
      assert.equal(follower.exitCode, 0);
      const { session: still } = await c.call('session.get', { id });
      assert.equal(still.state, 'running');
      assert.equal(still.shell_pid, session.shell_pid);
    } finally {
      follower.kill('SIGKILL');
    }
  });

  it('under tmux (installed by .ci/run): the attached pane shows the screen, then live output', async () => {
    const c = h.client();
    const { session } = await c.call('session.open', { principal: 'tmux', workspace: 'ws' });
    const id = session.remote_session_id;
    await c.call('session.exec', { id, command: 'echo TMUX-MARK', wait_ms: 10_000 });
    const tmux = (args: string[]): Promise<string> => h.tmux(args);
    await tmux(['new-session', '-d', '-x', '200', '-y', '50', `${process.execPath} ${CLI_MAIN} attach ${id} --follow`]);
    try {
      await pollUntil('TMUX-MARK in the pane', async () => (await tmux(['capture-pane', '-p'])).includes('TMUX-MARK'), 10_000);
      await c.call('session.exec', { id, command: 'echo AFTER-ATTACH', wait_ms: 10_000 });
      await pollUntil('live output in the pane', async () => (await tmux(['capture-pane', '-p'])).includes('AFTER-ATTACH'), 10_000);
    } finally {
      await tmux(['kill-server']).catch(() => undefined);
    }
    const { session: still } = await c.call('session.get', { id });
    assert.equal(still.state, 'running');
  });
});
