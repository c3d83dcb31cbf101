/**
 * Foreground commands in the guardian's PTY (DESIGN §5), against a real guardian process from the
 * bundle: exact output boundaries, exit codes, persistence of cwd/env, multi-line commands, the
 * one-command rule, awaiting input, typed commands, stopping, snapshots, and clean logs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { G, type CommandRecord, type ExecResult, type GuardianStatus, type ReadResult, type SnapshotResult } from '@holdfast/shared/protocol';
import type { RpcPeer } from '@holdfast/shared/wire';
import { endGuardian, exec, outputOf, readAll, run, startGuardian, until, type StartedGuardian } from './spawn-harness.js';

describe('foreground commands', () => {
  let g: StartedGuardian;
  let peer: RpcPeer;
  const events: Array<[string, unknown]> = [];

  before(async () => {
    g = await startGuardian();
    peer = await g.dial();
    peer.on('event', (ev, d) => events.push([ev, d]));
  });

  after(() => endGuardian(g, peer));

  it('echo hi returns exactly its output and exit 0', async () => {
    const rec = await run(peer, 'c_echo', 'echo hi');
    assert.equal(rec.exitCode, 0);
    assert.equal(await outputOf(peer, rec), 'hi\r\n');
  });

  it('reports exit codes 3 and 1', async () => {
    const three = await run(peer, 'c_exit3', "bash -c 'exit 3'");
    assert.equal(three.exitCode, 3);
    assert.equal(await outputOf(peer, three), '');
    const one = await run(peer, 'c_false', 'false');
    assert.equal(one.exitCode, 1);
  });

  it('Ctrl-C on sleep 30 ends it with 130', async () => {
    const r = await exec(peer, 'c_sleep', 'sleep 30', 300);
    assert.ok(r.ok && r.cmd.state === 'running');
    await peer.request(G.input, { keys: ['Ctrl-C'] });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_sleep', waitMs: 5000 });
    assert.equal(done.state, 'exited');
    assert.equal(done.exitCode, 130);
  });

  it('cd and export persist across commands (one shell)', async () => {
    await run(peer, 'c_cd', 'cd /tmp');
    const pwd = await run(peer, 'c_pwd', 'pwd');
    assert.equal(await outputOf(peer, pwd), '/tmp\r\n');
    const st = await peer.request<GuardianStatus>(G.status, {});
    assert.equal(st.cwd, '/tmp');
    await run(peer, 'c_export', 'export HF_X=1');
    const x = await run(peer, 'c_echo_x', 'echo "x=$HF_X"');
    assert.equal(await outputOf(peer, x), 'x=1\r\n');
  });

  it('runs a multi-line command as one command', async () => {
    const rec = await run(peer, 'c_multi', "for i in 1 2 3\ndo\n  echo \"n$i\"\ndone\ncat <<'EOF'\nhere 'doc' \\ $HOME\nEOF\n(exit 4)");
    assert.equal(rec.exitCode, 4);
    assert.equal(await outputOf(peer, rec), "n1\r\nn2\r\nn3\r\nhere 'doc' \\ $HOME\r\n");
  });

  it('an unterminated quote is an error, not a hang', async () => {
    const rec = await run(peer, 'c_quote', 'echo "abc');
    assert.equal(rec.exitCode, 2);
  });

  it('keeps UTF-8 and special characters exact', async () => {
    const rec = await run(peer, 'c_utf8', "printf '%s\\n' '名前 = \"Bäcker €\"' 'tab\there' 'bang!'");
    assert.equal(await outputOf(peer, rec), '名前 = "Bäcker €"\r\ntab\there\r\nbang!\r\n');
  });

  it('refuses a second command at once while one runs (no queue)', async () => {
    const first = await exec(peer, 'c_long', 'sleep 20', 200);
    assert.ok(first.ok && first.cmd.state === 'running');
    const t0 = Date.now();
    const second = await exec(peer, 'c_second', 'echo nope', 10000);
    assert.ok(Date.now() - t0 < 1000, 'refused at once');
    assert.deepEqual({ ok: second.ok, reason: !second.ok ? second.reason : null }, { ok: false, reason: 'command_already_running' });
    assert.equal(!second.ok && second.running?.id, 'c_long');
    const stopped = await peer.request<CommandRecord>(G.stop, { id: 'c_long' });
    assert.equal(stopped.state, 'exited');
    assert.equal(stopped.exitCode, 130);
  });

  it('returns early with awaitingInput for read -p, then finishes after input', async () => {
    const t0 = Date.now();
    const r = await exec(peer, 'c_read', "read -p 'Name? ' n; echo hi $n", 20000, 500);
    assert.ok(r.ok);
    assert.equal(r.cmd.state, 'running');
    assert.equal(r.cmd.awaitingInput, true);
    assert.ok(Date.now() - t0 < 10000, 'returned early');
    await peer.request(G.input, { text: 'bob', keys: ['Enter'] });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_read', waitMs: 5000 });
    assert.equal(done.exitCode, 0);
    assert.equal(await outputOf(peer, done), 'Name? bob\r\nhi bob\r\n');
  });

  it('input for a command that is no longer running (forId) is refused and nothing is typed', async () => {
    const r = await exec(peer, 'c_for', "read -p 'Answer? ' a; echo got $a", 20000, 500);
    assert.ok(r.ok && r.cmd.awaitingInput === true);
    const wrong = await peer.request<{ ok: boolean; reason?: string; running: CommandRecord | null }>(G.input, { text: 'yes', keys: ['Enter'], forId: 'c_other' });
    assert.deepEqual([wrong.ok, wrong.reason, wrong.running?.id], [false, 'not_running', 'c_for']);
    assert.deepEqual(await peer.request(G.input, { text: 'yes', keys: ['Enter'], forId: 'c_for' }), { ok: true });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_for', waitMs: 5000 });
    assert.equal(await outputOf(peer, done), 'Answer? yes\r\ngot yes\r\n');
    // c_for has ended: the same input now would reach the idle shell as a command line — refused.
    const late = await peer.request<{ ok: boolean; reason?: string; running: unknown }>(G.input, { text: 'touch should-not-exist', keys: ['Enter'], forId: 'c_for' });
    assert.deepEqual(late, { ok: false, reason: 'not_running', running: null });
    const check = await exec(peer, 'c_check', 'test -e should-not-exist; echo $?', 5000);
    assert.ok(check.ok);
    assert.equal((await outputOf(peer, check.cmd)).trim(), '1');
  });

  it('sees a program blocked reading the terminal without any prompt (cat)', async () => {
    const r = await exec(peer, 'c_cat', 'cat', 20000, 400);
    assert.ok(r.ok && r.cmd.awaitingInput === true);
    await peer.request(G.input, { text: 'line', keys: ['Enter', 'Ctrl-D'] });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_cat', waitMs: 5000 });
    assert.equal(done.exitCode, 0);
    assert.equal(await outputOf(peer, done), 'line\r\nline\r\n');
  });

  it('sees a password prompt read through /dev/tty (python getpass), with echo off', async () => {
    const r = await exec(peer, 'c_getpass', `python3 -c "import getpass; print('got', getpass.getpass('Password: '))"`, 20000, 400);
    assert.ok(r.ok && r.cmd.awaitingInput === true, JSON.stringify(r));
    await peer.request(G.input, { text: 'hunter2', keys: ['Enter'] });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_getpass', waitMs: 5000 });
    assert.equal(done.exitCode, 0);
    assert.equal(await outputOf(peer, done), 'Password: \r\ngot hunter2\r\n');
  });

  it('sees any member of the foreground group blocked on /dev/tty, with no prompt on screen', async () => {
    // The reader is a pipeline member two levels down, on a descriptor it opened by that name.
    const r = await exec(peer, 'c_devtty', `bash -c 'read -r -u 3 x 3</dev/tty; echo "[$x]"' | tr a-z A-Z`, 20000, 400);
    assert.ok(r.ok && r.cmd.awaitingInput === true, JSON.stringify(r));
    await peer.request(G.input, { text: 'quiet', keys: ['Enter'] });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_devtty', waitMs: 5000 });
    assert.equal(done.exitCode, 0);
    assert.ok((await outputOf(peer, done)).endsWith('[QUIET]\r\n'));
  });

  it('sees a full-screen program waiting in select() on the alternate screen', async () => {
    const py = `import sys, select; sys.stdout.write('\\x1b[?1049hmenu'); sys.stdout.flush(); select.select([sys.stdin], [], []); sys.stdout.write('\\x1b[?1049l'); print('picked')`;
    const r = await exec(peer, 'c_alt', `python3 -c "${py}"`, 20000, 400);
    assert.ok(r.ok && r.cmd.awaitingInput === true, JSON.stringify(r));
    await peer.request(G.input, { keys: ['Enter'] });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_alt', waitMs: 5000 });
    assert.equal(done.exitCode, 0);
    assert.ok((await outputOf(peer, done)).endsWith('picked\r\n'));
  });

  it('keys left unread by the previous program do not end the next command early', async () => {
    // select() returns without reading: the Enter stays queued and bash reads it as an empty line
    // (a stray D) right before the next command line.
    const py = "import sys, select; sys.stdout.write('Pick? '); sys.stdout.flush(); select.select([sys.stdin], [], [])";
    const r = await exec(peer, 'c_unread', `python3 -c "${py}"`, 20000, 300);
    assert.ok(r.ok && r.cmd.state === 'running');
    assert.ok(r.ok && r.cmd.awaitingInput === true);
    await peer.request(G.input, { keys: ['Enter'] });
    assert.equal((await peer.request<CommandRecord>(G.wait, { id: 'c_unread', waitMs: 5000 })).exitCode, 0);
    const next = await run(peer, 'c_next', 'sleep 0.3; echo next-ok');
    assert.equal(await outputOf(peer, next), 'next-ok\r\n');
  });

  it('a quiet command that does not read input is not awaiting input', async () => {
    const r = await exec(peer, 'c_quiet', 'sleep 2.5', 1200, 300);
    assert.ok(r.ok && r.cmd.state === 'running');
    assert.equal(r.cmd.awaitingInput, undefined);
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_quiet', waitMs: 5000 });
    assert.equal(done.exitCode, 0);
  });

  it('tracks a command typed through input as typed_<n> and reports it with g.done', async () => {
    await peer.request(G.input, { text: 'echo typed-ok', keys: ['Enter'] });
    const ev = await until('g.done of the typed command', 5000, () =>
      events.map(([, d]) => d as CommandRecord).find((d) => d.kind === 'command' && d.id.startsWith('typed_') && d.command === 'echo typed-ok'),
    );
    assert.equal(ev.exitCode, 0);
    assert.equal(await outputOf(peer, ev), 'typed-ok\r\n');
    const again = await peer.request<CommandRecord>(G.wait, { id: ev.id, waitMs: 0 });
    assert.equal(again.state, 'exited');
  });

  it('sends g.done for exec commands to connected peers', async () => {
    const rec = await run(peer, 'c_event', 'true');
    await until('g.done c_event', 3000, () => events.some(([ev, d]) => ev === 'g.done' && (d as CommandRecord).id === rec.id));
  });

  it('snapshot shows the screen and the offset it reflects', async () => {
    await run(peer, 'c_snap', "printf 'SNAP-%s\\n' ok");
    const st = await peer.request<GuardianStatus>(G.status, {});
    const snap = await peer.request<SnapshotResult>(G.snapshot, {});
    assert.equal(snap.cols, 200);
    assert.equal(snap.rows, 50);
    assert.equal(snap.lines.length, 50);
    assert.ok(snap.lines.some((l) => l === 'SNAP-ok'), snap.lines.join('\n'));
    assert.ok(snap.offset >= st.pty.end);
    assert.ok(snap.ansi.includes('SNAP-ok'));
    assert.ok(snap.cursor.y >= 0 && snap.cursor.y < 50);
  });

  it('long-polls the PTY for new output', async () => {
    const st = await peer.request<GuardianStatus>(G.status, {});
    const r = await exec(peer, 'c_late', 'sleep 0.4; echo late-line', 100);
    assert.ok(r.ok);
    const t0 = Date.now();
    let text = '';
    let from = st.pty.end;
    while (!text.includes('late-line')) {
      const rr = await peer.request<ReadResult>(G.read, { src: 'pty', from, max: 65536, waitMs: 5000 });
      assert.ok(rr.data.length > 0 || Date.now() - t0 < 5000);
      text += Buffer.from(rr.data).toString();
      from = rr.next;
      assert.ok(Date.now() - t0 < 5000, 'output arrived');
    }
    assert.equal((await peer.request<CommandRecord>(G.wait, { id: 'c_late', waitMs: 5000 })).exitCode, 0);
  });

  it('a fake marker with another nonce is kept as output and does not end the command', async () => {
    const rec = await run(peer, 'c_fake', "printf '\\033]633;HFdeadbeefdeadbeef;D;0\\007after\\n'; sleep 0.2; echo end");
    assert.equal(rec.exitCode, 0);
    const out = await outputOf(peer, rec);
    assert.ok(out.endsWith('after\r\nend\r\n'), JSON.stringify(out));
  });

  it('our markers never reach the PTY log', async () => {
    // The integration files are gone once the shell is ready (issue 18); the shell still knows the nonce.
    assert.equal(existsSync(join(g.spec.sessionDir, 'shell', 'integration.sh')), false);
    const shown = await run(peer, 'c_nonce', 'echo "nonce=$__hf_n"');
    const nonce = /nonce=([0-9a-f]+)/.exec(await outputOf(peer, shown))![1]!;
    const st = await peer.request<GuardianStatus>(G.status, {});
    const all = await readAll(peer, 'pty', 0, st.pty.end);
    assert.equal(all.length, st.pty.end);
    assert.equal(all.indexOf(Buffer.from(`\x1b]633;HF${nonce}`)), -1);
    assert.equal(all.indexOf(Buffer.from(`633;HF${nonce}`)), -1);
  });

  it('status reports the clock: executed, not busy when idle', async () => {
    const st = await peer.request<GuardianStatus>(G.status, {});
    assert.equal(st.clock.everExecuted, true);
    assert.equal(st.clock.busy, false);
    assert.equal(st.foreground, null);
    assert.ok(st.clock.lastInstructionAt >= st.clock.createdAt);
    assert.equal(st.shell.ready, true);
    assert.equal(st.shell.generation, 1);
  });

  it('runs a long command (200 KB) exactly, through a spill file', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `echo 'line ${i} ${'x'.repeat(30)}'`);
    const rec = await run(peer, 'c_long_cmd', lines.join('\n'));
    const out = await outputOf(peer, rec);
    assert.equal(out, Array.from({ length: 4000 }, (_, i) => `line ${i} ${'x'.repeat(30)}\r\n`).join(''));
    assert.equal(rec.exitCode, 0);
  });

  it('resize reaches the shell and the screen model', async () => {
    await peer.request(G.resize, { cols: 120, rows: 40 });
    const rec = await run(peer, 'c_size', 'stty size');
    assert.equal(await outputOf(peer, rec), '40 120\r\n');
    const snap = await peer.request<SnapshotResult>(G.snapshot, {});
    assert.equal(snap.cols, 120);
    assert.equal(snap.rows, 40);
    await peer.request(G.resize, { cols: 200, rows: 50 });
  });

  it('answers before the request deadline with the running record when waitMs is longer', async () => {
    const t0 = Date.now();
    const r = await peer.request<ExecResult>(G.exec, { id: 'c_deadline', command: 'sleep 2', waitMs: 60000 }, { deadlineMs: 800 });
    assert.ok(r.ok && r.cmd.state === 'running');
    assert.ok(Date.now() - t0 < 800);
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_deadline', waitMs: 5000 });
    assert.equal(done.exitCode, 0);
  });

  it('keeps the session history out of ~/.bash_history', async () => {
    const rec = await run(peer, 'c_hist', 'echo "$HISTFILE"');
    assert.equal(await outputOf(peer, rec), `${join(g.spec.sessionDir, 'shell', 'bash_history')}\r\n`);
  });

  it('refuses invalid parameters with BAD_REQUEST', async () => {
    await assert.rejects(peer.request<ExecResult>(G.exec, { id: 'x', command: '', waitMs: 1 }), { code: 'BAD_REQUEST' });
    await assert.rejects(peer.request(G.input, { keys: ['NoSuchKey'] }), { code: 'BAD_REQUEST' });
    await assert.rejects(peer.request(G.read, { src: 'nope', from: 0, max: 1 }), { code: 'BAD_REQUEST' });
    await assert.rejects(peer.request('g.nope', {}), { code: 'UNKNOWN_METHOD' });
  });
});
