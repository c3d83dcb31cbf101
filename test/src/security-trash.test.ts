import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileToolsFixture } from './_harness/files.js';
import { canMount, mountTmpfs, unmount } from './_harness/tmpfs.js';
import type { ToolReply } from './_harness/tools.js';
import { canCreateUsers, createUser, removeUser, type TestUser } from './_harness/users.js';

/**
 * Issue 18 item 5: `move_out` on another filesystem must not use a `$topdir/.Trash-$uid` that
 * another user created first (that user read the moved file). FreeDesktop Trash spec 1.0: a trash
 * folder not ours, not 0700, or a symlink is refused; the file goes to the home trash instead
 * (copied across filesystems).
 */
const ready = canMount() && canCreateUsers();

describe("move_out never uses another user's trash folder (issue 18)", { skip: ready ? false : 'needs root to mount a tmpfs and create a user' }, () => {
  const fx = new FileToolsFixture();
  const mnt = join(fx.h.home, 'other-fs');
  const ws = join(mnt, 'ws');
  const uid = process.getuid?.() ?? 0;
  const planted = join(mnt, `.Trash-${uid}`);
  let attacker: TestUser;
  const call = (tool: string, args: Record<string, unknown>): Promise<ToolReply> => fx.call(tool, args);

  before(async () => {
    mountTmpfs(mnt, 4);
    mkdirSync(ws);
    writeFileSync(join(ws, 'secret.txt'), 'private notes\n');
    // The workspace lives on the tmpfs; the home trash (XDG_DATA_HOME) is on another filesystem.
    writeFileSync(fx.h.layout.config, `workspaces:\n  - name: ws\n    path: ${JSON.stringify(ws)}\n`, { mode: 0o600 });
    attacker = createUser('hf18t');
    for (const d of [planted, join(planted, 'files'), join(planted, 'info')]) {
      mkdirSync(d);
      chownSync(d, attacker.uid, attacker.gid);
      chmodSync(d, 0o777);
    }
    await fx.start();
  });
  after(async () => {
    unmount(mnt); // lazily: the session's shell may still sit in the workspace
    removeUser(attacker);
    await fx.stop();
  });

  it('moves the file to the home trash, and nothing into the planted folder', async () => {
    const p = await call('move_out', { action: 'prepare', remote_session_id: fx.rs, purpose: 'clean up', targets: [{ path: 'secret.txt', kind: 'file' }] });
    assert.equal(p.env.status, 'waiting_confirmation', p.text);
    const s = await call('move_out', { action: 'submit', remote_session_id: fx.rs, confirmation_uuid: p.env.data.confirmation_uuid });
    assert.equal(s.env.status, 'succeeded', s.text);
    const moved = s.env.data.moved[0];
    assert.equal(moved.trash_dir, join(fx.h.home, 'xdg', 'Trash'));
    assert.equal(readFileSync(moved.trashed_to, 'utf8'), 'private notes\n');
    assert.equal(existsSync(join(ws, 'secret.txt')), false);
    assert.deepEqual(readdirSync(join(planted, 'files')), [], "the file landed in the other user's trash");
    assert.deepEqual(readdirSync(join(planted, 'info')), []);
  });
});
