import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CLI_MAIN, pollUntil, TestHome } from './_harness/home.js';

describe('holdfast restart-daemon while a command streams output (DESIGN §4.5)', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('keeps the shell pid, loses no byte, and a connected follower resumes by itself', async () => {
    const c = h.client();
    const { session } = await c.call('session.open', { principal: 'p', workspace: 'ws' });
    const id = session.remote_session_id;
    const oldDaemon = h.daemonPid();
    // 60 numbered lines, one every 50 ms: output is flowing during the restart.
    const r = await c.call('session.exec', { id, command: 'for i in $(seq 1 60); do echo line-$i; sleep 0.05; done; echo END', wait_ms: 0 });
    assert.equal(r.ok, true);
    const start = r.cmd!.outputStart;

    const follower = spawn(process.execPath, [CLI_MAIN, 'attach', id, '--follow', '--from', String(start)], { env: h.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let followed = '';
    follower.stdout.on('data', (d: Buffer) => (followed += d.toString()));
    try {
      await pollUntil('follower to see line-5', () => followed.includes('line-5'), 10_000);
      const restart = await h.cli(['restart-daemon']);
      assert.equal(restart.code, 0, restart.stderr);
      assert.match(restart.stdout, /restarted/);
      assert.notEqual(h.daemonPid(), oldDaemon);

      const c2 = h.client();
      const { session: after } = await c2.call('session.get', { id });
      assert.equal(after.shell_pid, session.shell_pid, 'same shell pid');

      // Read everything from the command's start: contiguous offsets, no gap, every line once.
      let text = '';
      let at = start;
      await pollUntil('the END line', async () => {
        const rr = await c2.call('session.read', { id, from: at, max: 65536, wait_ms: 1000 });
        assert.equal(rr.gap, false);
        assert.equal(rr.offset, at, 'offsets run on');
        text += Buffer.from(rr.data).toString();
        at = rr.next;
        return /^END\r?$/m.test(text);
      }, 20_000);
      const lines = text.split(/\r?\n/).filter((l) => l.startsWith('line-'));
      assert.deepEqual(lines, Array.from({ length: 60 }, (_, i) => `line-${i + 1}`));

      await pollUntil('the follower to resume and see the END line', () => /^END\r?$/m.test(followed), 20_000);
      const followedLines = followed.split(/\r?\n/).filter((l) => l.startsWith('line-'));
      assert.deepEqual(followedLines, lines, 'the follower saw every byte exactly once');
    } finally {
      follower.kill('SIGKILL');
    }
  });
});
