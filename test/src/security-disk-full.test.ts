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
