/**
 * What one command leaves behind never spoils the next (issue 9, item 7), and the agent sees the
 * command it sent, not holdfast's quoting (item 8) — against a real guardian from the bundle:
 * echo turned off, raw mode, `-isig`, the alternate screen, a scrolling region, a hidden cursor
 * and mouse tracking left by killed programs; the screen and bash's history for commands typed
 * through `eval`, with and without a one-off wrapper.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { G, type CommandRecord, type ExecResult, type SnapshotResult } from '@holdfast/shared/protocol';
import type { RpcPeer } from '@holdfast/shared/wire';
import { endGuardian, exec, outputOf, run, startGuardian, type StartedGuardian } from './spawn-harness.js';

describe('terminal state between commands', () => {
  let g: StartedGuardian;
  let peer: RpcPeer;
  const screen = async (): Promise<string[]> => (await peer.request<SnapshotResult>(G.snapshot, {})).lines;

  before(async () => {
    g = await startGuardian();
    peer = await g.dial();
  });

  after(() => endGuardian(g, peer));

  it('a program stopped while echo was off does not hide the next input (stty -echo)', async () => {
    const r = await exec(peer, 'c_noecho', 'stty -echo; sleep 30', 300);
    assert.ok(r.ok && r.cmd.state === 'running');
    assert.equal((await peer.request<CommandRecord>(G.stop, { id: 'c_noecho' })).state, 'exited');
    const q = await exec(peer, 'c_name', "read -p 'Name? ' n; echo \"hi $n\"", 20000, 400);
    assert.ok(q.ok && q.cmd.awaitingInput === true, JSON.stringify(q));
    await peer.request(G.input, { text: 'visible', keys: ['Enter'] });
    const done = await peer.request<CommandRecord>(G.wait, { id: 'c_name', waitMs: 5000 });
    assert.equal(await outputOf(peer, done), 'Name? visible\r\nhi visible\r\n');
    assert.ok((await screen()).some((l) => l.includes('Name? visible')));
  });

  it('a program killed in raw mode leaves a cooked terminal: lines end where they should, typed lines show', async () => {
    const r = await exec(peer, 'c_raw', `python3 -c "import tty, os, signal; tty.setraw(0); os.kill(os.getpid(), signal.SIGKILL)"`);
    assert.ok(r.ok && r.cmd.state === 'exited');
    const rec = await run(peer, 'c_after_raw', 'echo one; echo two');
    assert.equal(await outputOf(peer, rec), 'one\r\ntwo\r\n');
    assert.ok((await screen()).some((l) => l.includes('echo one; echo two')), 'the command line was echoed');
  });

  it('Ctrl-C still interrupts after a command turned signals off (stty -isig)', async () => {
    await run(peer, 'c_isig', 'stty -isig');
    const r = await exec(peer, 'c_sleep_isig', 'sleep 30', 300);
    assert.ok(r.ok && r.cmd.state === 'running');
    const stopped = await peer.request<CommandRecord>(G.stop, { id: 'c_sleep_isig' });
    assert.equal(stopped.exitCode, 130, 'ended by Ctrl-C, not by the kill escalation');
  });

  it('the alternate screen, hidden cursor and mouse tracking of a killed program are undone', async () => {
    await run(peer, 'c_before_alt', 'echo before-alt');
    const r = await exec(peer, 'c_alt_kill', `bash -c 'printf "\\033[?1049h\\033[?25l\\033[?1000h\\033[?1006hTUI"; kill -9 $$'`);
    assert.ok(r.ok && r.cmd.state === 'exited');
    await run(peer, 'c_after_alt', 'echo visible-after');
    const lines = await screen();
    const a = lines.findIndex((l) => l === 'before-alt');
    const b = lines.findIndex((l) => l === 'visible-after');
    assert.ok(a >= 0 && b > a, `back on the normal screen, below the earlier output:\n${lines.join('\n')}`);
    const snap = await peer.request<SnapshotResult>(G.snapshot, {});
    assert.doesNotMatch(snap.ansi, /\x1b\[\?1000h/, 'mouse tracking is off');
  });

  it('a scrolling region left behind does not swallow the next output', async () => {
    await run(peer, 'c_region', `printf '\\033[2;4r'`);
    const rec = await run(peer, 'c_lines', 'for i in $(seq 1 60); do echo line$i; done');
    assert.equal((await outputOf(peer, rec)).split('\r\n').length, 61);
    const lines = await screen();
    const i = lines.indexOf('line60');
    assert.ok(i >= 40 && lines.slice(i - 40, i + 1).every((l, k) => l === `line${20 + k}`), `the output fills the screen in order:\n${lines.join('\n')}`);
    assert.ok(lines.slice(i + 2).every((l) => l === ''), 'nothing stale below the prompt');
  });

  it('the screen and history show the command as sent, not the eval quoting', async () => {
    const cmd = `echo "it's \\"quoted\\"" && true`;
    const rec = await run(peer, 'c_quoted', cmd);
    assert.equal(await outputOf(peer, rec), `it's "quoted"\r\n`);
    assert.equal(rec.command, cmd);
    const lines = await screen();
    assert.ok(lines.some((l) => l.endsWith(cmd)), `the screen shows the command:\n${lines.join('\n')}`);
    assert.ok(!lines.some((l) => /__hf_c|eval \$'/.test(l)), 'no holdfast quoting on screen');
    const hist = await run(peer, 'c_hist', 'history 2 | head -n 1');
    assert.match(await outputOf(peer, hist), new RegExp(`^\\s*\\d+\\s+${cmd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\r\\n$`));
  });

  it('a one-off wrapper sent with display shows (and is remembered) as the command itself', async () => {
    const r = await peer.request<ExecResult>(G.exec, { id: 'c_wrapped', command: "( cd /tmp && export HF_W='w 1' && echo \"$PWD $HF_W\"\n)", display: 'echo "$PWD $HF_W"', waitMs: 10000 }, { deadlineMs: 15000 });
    assert.ok(r.ok && r.cmd.state === 'exited', JSON.stringify(r));
    assert.equal(await outputOf(peer, r.cmd), '/tmp w 1\r\n');
    assert.equal(r.cmd.command, 'echo "$PWD $HF_W"');
    const lines = await screen();
    assert.ok(lines.some((l) => l.endsWith('echo "$PWD $HF_W"')), lines.join('\n'));
    assert.ok(!lines.some((l) => l.includes('cd /tmp &&')), 'the wrapper is not on screen');
    const hist = await run(peer, 'c_hist2', 'history 2 | head -n 1');
    assert.match(await outputOf(peer, hist), /^\s*\d+\s+echo "\$PWD \$HF_W"\r\n$/);
  });

  it('a multi-line command shows as its lines', async () => {
    const rec = await run(peer, 'c_multi', 'echo first-line\necho second-line');
    assert.equal(await outputOf(peer, rec), 'first-line\r\nsecond-line\r\n');
    const lines = await screen();
    const i = lines.findIndex((l) => l.endsWith('echo first-line'));
    assert.ok(i >= 0 && lines[i + 1] === 'echo second-line', lines.join('\n'));
  });
});
