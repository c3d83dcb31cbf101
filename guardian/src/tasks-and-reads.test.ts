/**
 * Background tasks and output reads (DESIGN §3, §5) against a real guardian: exact argv, exit
 * codes after the fact, separate streams, gaps below the retained start, long-poll, stopping a
 * whole process group, refusals, and exits recorded while nobody is connected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { G, GEvents, type GuardianStatus, type ReadResult, type TaskRecord } from '@holdfast/shared/protocol';
import type { RpcPeer } from '@holdfast/shared/wire';
import { endGuardian, readAll, startGuardian, until, waitTask, type StartedGuardian } from './spawn-harness.js';

describe('tasks and reads', () => {
  let g: StartedGuardian;
  let peer: RpcPeer;
  const done: TaskRecord[] = [];

  before(async () => {
    g = await startGuardian();
    peer = await g.dial({ role: 'daemon' });
    peer.on('event', (ev, d) => {
      if (ev === GEvents.done && (d as TaskRecord).kind === 'task') done.push(d as TaskRecord);
    });
  });

  after(() => endGuardian(g, peer));

  it('runs argv exactly: no shell, no re-splitting', async () => {
    const t = await peer.request<TaskRecord>(G.spawn, { id: 't_argv', argv: ['printf', '%s|', '', 'a b', '名前'] });
    assert.equal(t.pgid, t.pid);
    assert.deepEqual(t.argv, ['printf', '%s|', '', 'a b', '名前']);
    const rec = await waitTask(peer, 't_argv');
    assert.equal(rec.exitCode, 0);
    const out = await readAll(peer, 'task:t_argv:stdout', 0, rec.stdout.end);
    assert.equal(out.toString('utf8'), '|a b|名前|');
  });

  it('keeps the output and exit code of a finished command task', async () => {
    await peer.request<TaskRecord>(G.spawn, { id: 't_done', command: 'printf done; exit 3' });
    await until('t_done exited', 5000, async () => (await peer.request<GuardianStatus>(G.status, {})).tasks.find((t) => t.id === 't_done')?.state === 'exited');
    const r = await peer.request<ReadResult>(G.read, { src: 'task:t_done:stdout', from: 0, max: 100 });
    assert.equal(Buffer.from(r.data).toString(), 'done');
    assert.equal(r.exited, true);
    assert.equal(r.exit_code, 3);
    assert.equal(r.end, 4);
    const rec = await peer.request<TaskRecord>(G.wait, { id: 't_done', waitMs: 0 });
    assert.equal(rec.exitCode, 3);
    assert.deepEqual(rec.argv, ['bash', '-c', 'printf done; exit 3']);
    assert.equal(rec.command, 'printf done; exit 3');
    assert.ok(done.some((d) => d.id === 't_done' && d.exitCode === 3), 'g.done was sent');
  });

  it('keeps stdout and stderr apart, with cwd and env', async () => {
    await peer.request<TaskRecord>(G.spawn, { id: 't_streams', command: 'echo "out $HF_T $PWD"; echo err >&2', cwd: '/tmp', env: { HF_T: 'v' } });
    const rec = await waitTask(peer, 't_streams');
    assert.equal((await readAll(peer, 'task:t_streams:stdout', 0, rec.stdout.end)).toString(), 'out v /tmp\n');
    assert.equal((await readAll(peer, 'task:t_streams:stderr', 0, rec.stderr.end)).toString(), 'err\n');
  });

  it('reading below the retained start returns from the start with gap', async () => {
    await peer.request<TaskRecord>(G.spawn, { id: 't_big', argv: ['head', '-c', String(40 * 1024 * 1024), '/dev/zero'] });
    const rec = await waitTask(peer, 't_big', 30000);
    assert.equal(rec.stdout.end, 40 * 1024 * 1024);
    assert.ok(rec.stdout.start > 0, 'older segments were dropped');
    const r = await peer.request<ReadResult>(G.read, { src: 'task:t_big:stdout', from: 0, max: 16 });
    assert.equal(r.gap, true);
    assert.equal(r.offset, rec.stdout.start);
    assert.equal(r.next, rec.stdout.start + 16);
    assert.equal(r.data.length, 16);
    const inside = await peer.request<ReadResult>(G.read, { src: 'task:t_big:stdout', from: rec.stdout.start + 10, max: 16 });
    assert.equal(inside.gap, false);
  });

  it('long-polls a task stream until bytes arrive', async () => {
    await peer.request<TaskRecord>(G.spawn, { id: 't_late', command: 'sleep 0.4; echo late' });
    const t0 = Date.now();
    const r = await peer.request<ReadResult>(G.read, { src: 'task:t_late:stdout', from: 0, max: 100, waitMs: 5000 });
    assert.equal(Buffer.from(r.data).toString(), 'late\n');
    assert.ok(Date.now() - t0 >= 200, 'it waited for the bytes');
    // At the end of an exited stream the read returns at once with exited.
    await waitTask(peer, 't_late');
    const t1 = Date.now();
    const eof = await peer.request<ReadResult>(G.read, { src: 'task:t_late:stdout', from: 5, max: 100, waitMs: 5000 });
    assert.equal(eof.data.length, 0);
    assert.equal(eof.exited, true);
    assert.ok(Date.now() - t1 < 1000);
  });

  it('stop kills the whole process group of a task', async () => {
    const t = await peer.request<TaskRecord>(G.spawn, { id: 't_group', command: 'sleep 1004 & sleep 1004; wait' });
    await until('two sleeps', 5000, () => g.leftovers().filter((p) => p.cmd === 'sleep 1004').length === 2);
    const rec = await peer.request<TaskRecord>(G.stop, { id: 't_group' }, { deadlineMs: 10000 });
    assert.equal(rec.state, 'exited');
    assert.ok(rec.signal !== null || rec.exitCode !== 0);
    await until('no sleep 1004', 3000, () => !g.leftovers().some((p) => p.cmd === 'sleep 1004'));
    assert.equal(t.pgid, rec.pgid);
  });

  it('refuses what cannot run, duplicate ids and unknown tasks', async () => {
    await assert.rejects(peer.request(G.spawn, { id: 't_missing', argv: ['/nonexistent/prog'] }), { code: 'SPAWN_FAILED' });
    await assert.rejects(peer.request(G.spawn, { id: 't_badcwd', argv: ['true'], cwd: '/nonexistent/dir' }), { code: 'SPAWN_FAILED' });
    await assert.rejects(peer.request(G.spawn, { id: 't_argv', argv: ['true'] }), { code: 'BAD_REQUEST' });
    await assert.rejects(peer.request(G.spawn, { id: 't_both', argv: ['true'], command: 'true' }), { code: 'BAD_REQUEST' });
    await assert.rejects(peer.request(G.read, { src: 'task:t_never:stdout', from: 0, max: 1 }), { code: 'TASK_NOT_FOUND' });
    await assert.rejects(peer.request(G.wait, { id: 't_never', waitMs: 0 }), { code: 'TASK_NOT_FOUND' });
    await assert.rejects(peer.request(G.stop, { id: 't_never' }), { code: 'TASK_NOT_FOUND' });
  });

  it('records a task exit while no daemon is connected', async () => {
    await peer.request<TaskRecord>(G.spawn, { id: 't_alone', command: 'sleep 0.3; echo alone; exit 9' });
    peer.close();
    await new Promise((r) => setTimeout(r, 800)); // the task ends while nobody is connected
    peer = await g.dial({ role: 'daemon' });
    const st = await peer.request<GuardianStatus>(G.status, {});
    const t = st.tasks.find((x) => x.id === 't_alone')!;
    assert.equal(t.state, 'exited');
    assert.equal(t.exitCode, 9);
    assert.equal((await readAll(peer, 'task:t_alone:stdout', 0, t.stdout.end)).toString(), 'alone\n');
  });

  it('busy while a task runs', async () => {
    await peer.request<TaskRecord>(G.spawn, { id: 't_busy', argv: ['sleep', '1'] });
    assert.equal((await peer.request<GuardianStatus>(G.status, {})).clock.busy, true);
    await waitTask(peer, 't_busy');
    assert.equal((await peer.request<GuardianStatus>(G.status, {})).clock.busy, false);
  });
});
