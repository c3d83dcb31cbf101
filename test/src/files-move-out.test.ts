import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { FileToolsFixture } from './_harness/files.js';
import { openSession, type ToolReply } from './_harness/tools.js';

/** `[Trash Info]` fields of a .trashinfo file (FreeDesktop Trash spec 1.0). */
function trashInfo(file: string): { path: string; date: string } {
  const lines = readFileSync(file, 'utf8').split('\n');
  assert.equal(lines[0], '[Trash Info]');
  const path = decodeURIComponent(lines.find((l) => l.startsWith('Path='))!.slice(5));
  const date = lines.find((l) => l.startsWith('DeletionDate='))!.slice(13);
  assert.match(date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  return { path, date };
}

describe('move_out: removal only goes to the trash (issue 4)', () => {
  const fx = new FileToolsFixture();
  const { h, ws } = fx;
  const trash = join(h.home, 'xdg', 'Trash');
  const call = (tool: string, args: Record<string, unknown>): Promise<ToolReply> => fx.call(tool, args);
  let rs = '';
  const w = (rel: string, data: string): void => fx.write(rel, data);
  const prepare = (targets: { path: string; kind: string }[], extra: Record<string, unknown> = {}): Promise<ToolReply> =>
    call('move_out', { action: 'prepare', remote_session_id: rs, purpose: 'clean up', targets, ...extra });

  before(async () => {
    await fx.start();
    rs = fx.rs;
  });
  after(() => fx.stop());

  it('the summary a user confirms shows control and bidirectional characters of names and purpose as escapes', async () => {
    w('evil\u202Etxt.exe', 'x');
    const p = await prepare([{ path: 'evil\u202Etxt.exe', kind: 'file' }], { purpose: 'tidy\n  README.md (1 bytes)\u001b[2K' });
    assert.equal(p.env.status, 'waiting_confirmation', p.text);
    assert.doesNotMatch(p.text, /[\u202E\u001b]/, 'no raw control or bidi character in the text');
    assert.match(p.text, /evil\\u202Etxt\.exe \(1 bytes\)/);
    assert.match(p.text, /\(tidy\\n  README\.md \(1 bytes\)\\u001B\[2K\)/);
    assert.equal(p.text.split('\n').length, 3, 'a heading, one item, the instruction');
    assert.equal(p.env.data.previews[0].path, 'evil\u202Etxt.exe', 'the exact name stays in data');
  });

  it('a directory ends in the trash with a valid .trashinfo; a second submit returns the same receipt', async () => {
    w('build/out/a.o', 'a');
    w('build/b.o', 'b');
    const p = await prepare([{ path: 'build', kind: 'directory' }]);
    assert.equal(p.env.status, 'waiting_confirmation');
    assert.equal(p.env.hints.preferred_behavior, 'ask_confirm');
    const d = p.env.data;
    assert.match(d.confirmation_uuid, /^[0-9a-f-]{36}$/);
    assert.match(d.move_request_id, /^mv_/);
    assert.match(d.manifest_sha256, /^[0-9a-f]{64}$/);
    assert.ok(d.idempotency_key);
    const ttl = Date.parse(d.expires_at) - Date.now();
    assert.ok(ttl > 29 * 60_000 && ttl <= 30 * 60_000);
    assert.equal(d.count, 1);
    assert.deepEqual(d.previews, [{ path: 'build', kind: 'directory' }]);
    assert.ok(existsSync(join(ws, 'build')), 'prepare moves nothing');
    assert.deepEqual(p.env.actions[0]?.arguments, { action: 'submit', remote_session_id: rs, confirmation_uuid: d.confirmation_uuid });

    const s = await call('move_out', p.env.actions[0]!.arguments);
    assert.equal(s.env.status, 'succeeded', s.text);
    assert.equal(existsSync(join(ws, 'build')), false);
    const moved = s.env.data.moved[0];
    assert.equal(moved.trash_dir, trash);
    assert.equal(readFileSync(join(moved.trashed_to, 'out', 'a.o'), 'utf8'), 'a');
    assert.equal(trashInfo(moved.info_file).path, join(ws, 'build'));
    const again = await call('move_out', p.env.actions[0]!.arguments);
    assert.deepEqual(again.env.data, s.env.data);
    assert.equal(again.env.hints.idempotent_replay, true);
    const audit = readFileSync(h.layout.auditLog, 'utf8');
    assert.match(audit, /"event":"move_out.submitted"/);
  });

  it('a symlink moves as a link: its target is not followed', async () => {
    w('../outside-target.txt', 'outside');
    symlinkSync(join(h.home, 'outside-target.txt'), join(ws, 'link'));
    const p = await prepare([{ path: 'link', kind: 'symlink' }]);
    assert.equal(p.env.status, 'waiting_confirmation', p.text);
    assert.equal(p.env.data.previews[0].link_target, join(h.home, 'outside-target.txt'));
    const s = await call('move_out', { action: 'submit', remote_session_id: rs, confirmation_uuid: p.env.data.confirmation_uuid });
    assert.equal(s.env.status, 'succeeded', s.text);
    const to = s.env.data.moved[0].trashed_to as string;
    assert.ok(lstatSync(to).isSymbolicLink());
    assert.equal(readlinkSync(to), join(h.home, 'outside-target.txt'));
    assert.equal(readFileSync(join(h.home, 'outside-target.txt'), 'utf8'), 'outside');
  });

  it('submit accepts only remote_session_id and confirmation_uuid', async () => {
    w('keep.txt', 'k');
    const p = await prepare([{ path: 'keep.txt', kind: 'file' }]);
    const uuid = p.env.data.confirmation_uuid;
    for (const extra of [{ targets: [{ path: 'keep.txt', kind: 'file' }] }, { purpose: 'x' }, { force: true }]) {
      const r = await call('move_out', { action: 'submit', remote_session_id: rs, confirmation_uuid: uuid, ...extra });
      assert.equal(r.env.error?.code, 'BAD_REQUEST', JSON.stringify(extra));
    }
    const r = await call('move_out', { action: 'submit', remote_session_id: rs });
    assert.equal(r.env.error?.code, 'BAD_REQUEST');
    assert.ok(existsSync(join(ws, 'keep.txt')));
  });

  it('a target changed after prepare is MANIFEST_CHANGED and nothing moves', async () => {
    w('a.txt', 'a');
    w('b.txt', 'b');
    const p = await prepare([{ path: 'a.txt', kind: 'file' }, { path: 'b.txt', kind: 'file' }]);
    w('b.txt', 'b changed');
    const s = await call('move_out', { action: 'submit', remote_session_id: rs, confirmation_uuid: p.env.data.confirmation_uuid });
    assert.equal(s.env.error?.code, 'MANIFEST_CHANGED');
    assert.equal(s.env.actions[0]?.arguments.action, 'prepare');
    assert.ok(existsSync(join(ws, 'a.txt')) && existsSync(join(ws, 'b.txt')));
  });

  it('an expired confirmation is refused with the prepare to do again', async () => {
    w('late.txt', 'l');
    const p = await prepare([{ path: 'late.txt', kind: 'file' }]);
    const db = new Database(h.layout.db);
    db.prepare('UPDATE move_requests SET expires_at = ? WHERE confirmation_uuid = ?').run(Date.now() - 1000, p.env.data.confirmation_uuid);
    db.close();
    const s = await call('move_out', { action: 'submit', remote_session_id: rs, confirmation_uuid: p.env.data.confirmation_uuid });
    assert.equal(s.env.error?.code, 'CONFIRMATION_EXPIRED');
    assert.equal(s.env.actions[0]?.arguments.action, 'prepare');
    assert.ok(existsSync(join(ws, 'late.txt')));
  });

  it('refusals: outside, wrong kind, denied, the root, nested targets, another session’s confirmation', async () => {
    w('dir/f.txt', 'f');
    const code = async (targets: { path: string; kind: string }[]): Promise<string | undefined> => (await prepare(targets)).env.error?.code;
    assert.equal(await code([{ path: '../config.yaml', kind: 'file' }]), 'PATH_OUTSIDE_WORKSPACE');
    assert.equal(await code([{ path: '/etc/hosts', kind: 'file' }]), 'PATH_OUTSIDE_WORKSPACE');
    assert.equal(await code([{ path: 'dir', kind: 'file' }]), 'BAD_REQUEST');
    assert.equal(await code([{ path: 'missing', kind: 'file' }]), 'PATH_NOT_FOUND');
    mkdirSync(join(ws, '.git'), { recursive: true });
    assert.equal(await code([{ path: '.git', kind: 'directory' }]), 'POLICY_DENIED');
    assert.equal(await code([{ path: '.', kind: 'directory' }]), 'BAD_REQUEST');
    assert.equal(await code([{ path: 'dir', kind: 'directory' }, { path: 'dir/f.txt', kind: 'file' }]), 'BAD_REQUEST');
    const p = await prepare([{ path: 'dir/f.txt', kind: 'file' }]);
    const intruder = fx.caller('intruder');
    const otherRs = await openSession(h.client(), 'intruder');
    const s = await intruder('move_out', { action: 'submit', remote_session_id: otherRs, confirmation_uuid: p.env.data.confirmation_uuid });
    assert.equal(s.env.error?.code, 'CONFIRMATION_NOT_FOUND');
    assert.ok(existsSync(join(ws, 'dir/f.txt')));
  });

  it('prepare with an idempotency_key: same arguments, same confirmation; other arguments conflict', async () => {
    w('i.txt', 'i');
    const a = await prepare([{ path: 'i.txt', kind: 'file' }], { idempotency_key: 'mv-1' });
    const b = await prepare([{ path: 'i.txt', kind: 'file' }], { idempotency_key: 'mv-1' });
    assert.equal(b.env.data.confirmation_uuid, a.env.data.confirmation_uuid);
    const c = await prepare([{ path: 'dir', kind: 'directory' }], { idempotency_key: 'mv-1' });
    assert.equal(c.env.error?.code, 'IDEMPOTENCY_CONFLICT');
  });
});
