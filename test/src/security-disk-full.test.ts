import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FILE_TOOLS } from './_harness/files.js';
import { pollUntil, TestHome } from './_harness/home.js';
import { canMount, mountTmpfs, unmount } from './_harness/tmpfs.js';
import { openSession, toolCaller, type ToolReply } from './_harness/tools.js';

/**
 * Issue 18 item 6: a full disk killed the daemon (uncaught SQLITE_FULL) and every restart failed
 * with ENOSPC, so the agent could not even free space. Here `state/` is an 8 MiB tmpfs filled to
 * the last byte: the daemon stays up, refuses edits with a retryable DISK_FULL, keeps reads,
 * execute and move_out working, survives a restart, and accepts writes again by itself once space
 * is back.
 */

/** Fills the filesystem of `path` (a new file) until it is full; returns its path. */
function fill(path: string): string {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  // Then the last small blocks.
  const small = openSync(`${path}.tail`, 'w');
  try {
    for (;;) writeSync(small, Buffer.alloc(512, 0x62));
  } catch {
    // full
  } finally {
    closeSync(small);
  }
  return path;
}

describe('a full disk under the state (issue 18)', { skip: canMount() ? false : 'needs root to mount a tmpfs' }, () => {
  const h = new TestHome();
  const state = h.layout.stateDir;
  let call: (tool: string, args: Record<string, unknown>) => Promise<ToolReply>;
  let rs = '';
  before(async () => {
    mountTmpfs(state, 8);
    process.env.XDG_DATA_HOME = join(h.home, 'xdg');
    await h.startDaemon();
    const c = h.client();
    call = toolCaller(c, 'p', FILE_TOOLS);
    rs = await openSession(c);
  });
  after(async () => {
    unmount(state); // lazily: the daemon keeps its open files until cleanup stops it
    await h.cleanup();
  });

  const readA = async (): Promise<ToolReply> => call('read', { remote_session_id: rs, path: 'a.txt', force: true });

  it('stays up: reads, execute and move_out work, edits answer DISK_FULL; a restart works; writes come back by themselves', async () => {
    writeFileSync(join(h.workspace, 'a.txt'), 'alpha\n');
    writeFileSync(join(h.workspace, 'junk.bin'), Buffer.alloc(1024));
    const first = await readA();
    assert.equal(first.env.status, 'succeeded', first.text);
    const base = first.env.data.sha256 as string;
    const filler = fill(join(state, 'filler'));

    // Keep using the session until the daemon notices the disk is full (its writes fail).
    let refused: ToolReply | null = null;
    for (let i = 0; i < 300 && refused === null; i++) {
      const r = await call('read', { remote_session_id: rs, path: 'a.txt', force: true, offset: i % 2 });
      assert.equal(r.env.status, 'succeeded', `read ${i} on a full disk: ${r.text}`);
      const e = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'a.txt', base_sha256: base, content: 'beta\n' }] });
      if (e.env.error?.code === 'DISK_FULL') refused = e;
      else assert.notEqual(e.env.status, 'succeeded', 'an edit was applied on a full disk');
    }
    assert.ok(refused, 'no edit was refused with DISK_FULL');
    assert.equal(refused.env.error?.retryable, true);
    assert.match(refused.env.error!.message, /disk is full/);

    const x = await call('execute', { remote_session_id: rs, command: 'echo still-here', yield_time_ms: 20_000 });
    assert.equal(x.env.status, 'succeeded', x.text);
    assert.match(String(x.env.data.output), /still-here/);
    const p = await call('move_out', { action: 'prepare', remote_session_id: rs, purpose: 'free space', targets: [{ path: 'junk.bin', kind: 'file' }] });
    assert.equal(p.env.status, 'waiting_confirmation', p.text);
    const s = await call('move_out', { action: 'submit', remote_session_id: rs, confirmation_uuid: p.env.data.confirmation_uuid });
    assert.equal(s.env.status, 'succeeded', s.text);
    assert.equal(existsSync(join(h.workspace, 'junk.bin')), false);

    // A restart on the full disk.
    await h.kill9Daemon();
    await h.startDaemon();
    call = toolCaller(h.client(), 'p', FILE_TOOLS);
    const again = await readA();
    assert.equal(again.env.status, 'succeeded', again.text);

    // Space comes back: edits are accepted again without a restart.
    rmSync(filler, { force: true });
    rmSync(`${filler}.tail`, { force: true });
    const ok = await pollUntil('edits to be accepted again', async () => {
      const e = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'a.txt', base_sha256: base, content: 'beta\n' }] });
      return e.env.status === 'succeeded' ? e : null;
    }, 15_000, 250);
    assert.equal(ok.env.data.files[0].changed, true);
  });
});

/**
 * The same for a session's own logs: `sessions/` is a 4 MiB tmpfs filled to the last byte. A
 * command's output cannot be written to its log (ENOSPC): the command still completes with its
 * exit code and a note that its output was not saved; a background task likewise; a long command
 * (normally spilled to a file) still runs; once space is back the session's output is saved again.
 */
describe('a full disk under the session logs', { skip: canMount() ? false : 'needs root to mount a tmpfs' }, () => {
  const h = new TestHome();
  const sessions = h.layout.sessionsDir;
  let call: (tool: string, args: Record<string, unknown>) => Promise<ToolReply>;
  let rs = '';
  before(async () => {
    mountTmpfs(sessions, 4);
    await h.startDaemon();
    const c = h.client();
    call = toolCaller(c, 'p', FILE_TOOLS);
    rs = await openSession(c);
    const warm = await call('execute', { remote_session_id: rs, command: 'echo warm', yield_time_ms: 20_000 });
    assert.equal(warm.env.status, 'succeeded', warm.text);
  });
  after(async () => {
    unmount(sessions);
    await h.cleanup();
  });

  it('commands and tasks keep running with a note that their output was not saved; the session recovers when space is back', async () => {
    const filler = fill(join(sessions, 'filler'));
    const x = await call('execute', { remote_session_id: rs, command: 'seq 1 20000; echo done-$((40+2)); exit_code_probe=7; (exit 3)', yield_time_ms: 20_000 });
    assert.notEqual(x.env.status, 'failed', x.text);
    assert.equal(x.env.data.exit_code, 3, x.text);
    assert.match(x.text, /bytes of this command's output were not saved/);
    assert.ok(Number(x.env.hints.output_not_saved_bytes) > 0, JSON.stringify(x.env.hints));

    const bg = await call('execute', { remote_session_id: rs, command: 'seq 1 20000', background: true, yield_time_ms: 20_000 });
    const task = bg.env.context.execution_task_id!;
    const done = await pollUntil('the task to end', async () => {
      const st = await call('execute', { action: 'attach', remote_session_id: rs, execution_task_id: task, yield_time_ms: 5000 });
      return st.env.status === 'accepted' ? null : st;
    }, 30_000);
    assert.match(done.text, /not saved/, done.text);

    // A command longer than the inline limit is normally written to a file first: it still runs.
    const long = await call('execute', { remote_session_id: rs, command: `: ${'x'.repeat(6000)}; echo long-ran`, yield_time_ms: 20_000 });
    assert.notEqual(long.env.status, 'failed', long.text);
    assert.equal(long.env.data.exit_code, 0, long.text);

    rmSync(filler, { force: true });
    rmSync(`${filler}.tail`, { force: true });
    const back = await call('execute', { remote_session_id: rs, command: 'echo space-is-back', yield_time_ms: 20_000 });
    assert.equal(back.env.status, 'succeeded', back.text);
    assert.match(String(back.env.data.output), /space-is-back/);
    assert.doesNotMatch(back.text, /not saved/);
  });
});
