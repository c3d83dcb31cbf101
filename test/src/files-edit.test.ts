import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileToolsFixture, sha256 as sha, utf16le } from './_harness/files.js';
import type { ToolReply } from './_harness/tools.js';

describe('edit: byte-exact, guarded, atomic (issue 4)', () => {
  // verify_wait_ms: a verify_command still running after 1.5 s is handed back as a task.
  const fx = new FileToolsFixture({ security: { commands: { deny: ['rm'] } }, limits: { verify_wait_ms: 1500 } });
  const ws = fx.ws;
  const call = (tool: string, args: Record<string, unknown>): Promise<ToolReply> => fx.call(tool, args);
  let rs = '';
  const w = (rel: string, data: string | Buffer): void => fx.write(rel, data);
  const bytes = (rel: string): Buffer => fx.bytes(rel);
  /** Reads a file through the tool (as a client must before editing) and returns its sha256. */
  const readSha = async (path: string): Promise<string> => {
    const r = await call('read', { remote_session_id: rs, path, force: true });
    assert.equal(r.env.status, 'succeeded', r.text);
    return r.env.data.sha256 as string;
  };
  const replace = async (path: string, match: string, replacement: string, extra: Record<string, unknown> = {}): Promise<ToolReply> =>
    call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path, base_sha256: await readSha(path), replacements: [{ match, replacement }] }], ...extra });

  before(async () => {
    await fx.start();
    rs = fx.rs;
  });
  after(() => fx.stop());

  it('a CRLF file edited stays CRLF', async () => {
    w('crlf.txt', 'a\r\nb\r\nc\r\n');
    const r = await replace('crlf.txt', 'b', 'B');
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(sha(bytes('crlf.txt')), sha('a\r\nB\r\nc\r\n'));
    const rb = r.env.data.files[0].readback;
    assert.equal(rb.sha256, sha('a\r\nB\r\nc\r\n'));
    assert.equal(rb.byte_length, 9);
    assert.equal(rb.tail_hex, Buffer.from('a\r\nB\r\nc\r\n').toString('hex'));
    assert.equal(rb.format.line_ending, 'CRLF');
  });

  it('a BOM stays', async () => {
    w('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\ny\n')]));
    await replace('bom.txt', 'y', 'z');
    assert.equal(sha(bytes('bom.txt')), sha(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\nz\n')])));
  });

  it('mixed endings stay per line', async () => {
    w('mixed.txt', 'one\r\ntwo\nthree\rfour\n');
    const r = await replace('mixed.txt', 'two\nthree', 'TWO\nTHREE');
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(sha(bytes('mixed.txt')), sha('one\r\nTWO\nTHREE\rfour\n'));
  });

  it('a missing final newline stays missing', async () => {
    w('nofinal.txt', 'alpha\nbeta');
    await replace('nofinal.txt', 'beta', 'gamma');
    assert.equal(sha(bytes('nofinal.txt')), sha('alpha\ngamma'));
  });

  it('a UTF-16LE BOM file round-trips', async () => {
    w('u16.txt', utf16le('héllo\r\nwörld\r\n'));
    const r = await replace('u16.txt', 'wörld', 'Welt');
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(sha(bytes('u16.txt')), sha(utf16le('héllo\r\nWelt\r\n')));
  });

  it('editing line 2 leaves the line 名前 = "Bäcker €" byte-identical', async () => {
    const line1 = Buffer.from('名前 = "Bäcker €"\n');
    w('names.txt', Buffer.concat([line1, Buffer.from('count = 1\n')]));
    await replace('names.txt', 'count = 1', 'count = 2');
    const out = bytes('names.txt');
    assert.equal(sha(out.subarray(0, line1.length)), sha(line1));
    assert.equal(out.subarray(line1.length).toString(), 'count = 2\n');
  });

  it('a Markdown table with double spaces is matched exactly', async () => {
    w('table.md', '| name  | value  |\n|-------|--------|\n| a     | 1      |\n');
    const r = await replace('table.md', '| a     | 1      |', '| a     | 2      |');
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(bytes('table.md').toString(), '| name  | value  |\n|-------|--------|\n| a     | 2      |\n');
  });

  it('a source line containing a literal \\n escape is matched and replaced', async () => {
    w('esc.js', 'console.log("a\\nb");\nconsole.log(1);\n');
    const r = await replace('esc.js', 'console.log("a\\nb");', 'console.log("a\\nc");');
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(bytes('esc.js').toString(), 'console.log("a\\nc");\nconsole.log(1);\n');
  });

  it('line_patch, whole content, and exact bytes with expected_format (refused when the format differs)', async () => {
    w('lp.txt', '1\r\n2\r\n3\r\n');
    let r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'lp.txt', base_sha256: await readSha('lp.txt'), line_patch: [{ start_line: 2, end_line: 2, content: 'two\nzwei\n' }] }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(bytes('lp.txt').toString(), '1\r\ntwo\r\nzwei\r\n3\r\n');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'lp.txt', base_sha256: await readSha('lp.txt'), content: 'x\ny\n' }] });
    assert.equal(bytes('lp.txt').toString(), 'x\r\ny\r\n');
    const exact = Buffer.from('p\nq');
    const fmt = { charset: 'utf-8', bom: false, line_ending: 'LF' };
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'lp.txt', base_sha256: await readSha('lp.txt'), content_base64: exact.toString('base64'), newline_policy: 'exact', expected_format: fmt }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(sha(bytes('lp.txt')), sha(exact));
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'lp.txt', base_sha256: await readSha('lp.txt'), content_base64: Buffer.from('a\r\nb').toString('base64'), newline_policy: 'exact', expected_format: fmt }] });
    assert.equal(r.env.error?.code, 'FORMAT_MISMATCH');
    assert.equal(sha(bytes('lp.txt')), sha(exact));
  });

  it('a stale base_sha256 is SHA_MISMATCH with a re-read action; an unread file is READ_REQUIRED with the exact read', async () => {
    w('guard.txt', 'v1\n');
    const old = await readSha('guard.txt');
    w('guard.txt', 'v2 changed by someone else\n');
    let r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'guard.txt', base_sha256: old, content: 'mine\n' }] });
    assert.equal(r.env.error?.code, 'SHA_MISMATCH');
    assert.equal(r.env.actions[0]?.tool, 'read');
    assert.equal(r.env.actions[0]?.arguments.path, 'guard.txt');
    assert.equal(bytes('guard.txt').toString(), 'v2 changed by someone else\n');
    w('unread.txt', 'never read\n');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'unread.txt', base_sha256: sha('never read\n'), content: 'x\n' }] });
    assert.equal(r.env.error?.code, 'READ_REQUIRED');
    const todo = r.env.actions[0]!;
    assert.deepEqual([todo.tool, todo.arguments.path], ['read', 'unread.txt']);
    await call(todo.tool, todo.arguments);
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'unread.txt', base_sha256: sha('never read\n'), content: 'x\n' }] });
    assert.equal(r.env.status, 'succeeded', r.text);
  });

  it('a missed match lists the closest candidate with a char diff; three misses in a row are RECOVERY_EXHAUSTED', async () => {
    w('miss.ts', 'function add(a, b) {\n  return a + b;\n}\n');
    const base = await readSha('miss.ts');
    const attempt = (match: string): Promise<ToolReply> => call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'miss.ts', base_sha256: base, replacements: [{ match, replacement: 'x' }] }] });
    let r = await attempt('return a+b;');
    assert.equal(r.env.error?.code, 'MATCH_NOT_FOUND');
    const details = r.env.hints.details as { candidates: { line: number }[]; char_diff: string };
    assert.equal(details.candidates[0]?.line, 2);
    assert.match(details.char_diff, /\{\+ \+\}/);
    assert.equal(r.env.actions[0]?.arguments.start_line, 1);
    r = await attempt('return a  + b;');
    assert.equal(r.env.error?.code, 'MATCH_NOT_FOUND');
    r = await attempt('retrun a + b;');
    assert.equal(r.env.error?.code, 'RECOVERY_EXHAUSTED');
    r = await attempt('return a + b;');
    assert.equal(r.env.error?.code, 'RECOVERY_EXHAUSTED', 'no more attempts until the file is read again');
    await readSha('miss.ts');
    r = await attempt('return a + b;');
    assert.equal(r.env.status, 'succeeded', r.text);
  });

  it('an ambiguous match lists every line it occurs on', async () => {
    w('dup.txt', 'x = 1\ny = 2\nx = 1\n');
    const r = await replace('dup.txt', 'x = 1', 'x = 3');
    assert.equal(r.env.error?.code, 'MATCH_AMBIGUOUS');
    assert.deepEqual((r.env.hints.details as { lines: number[] }).lines, [1, 3]);
  });

  it('all-or-nothing: one bad target leaves every file untouched', async () => {
    w('ok1.txt', 'one\n');
    w('ok2.txt', 'two\n');
    const r = await call('edit', {
      remote_session_id: rs,
      edits: [
        { operation: 'update', path: 'ok1.txt', base_sha256: await readSha('ok1.txt'), content: 'ONE\n' },
        { operation: 'create', path: 'fresh.txt', content: 'new\n' },
        { operation: 'update', path: 'ok2.txt', base_sha256: await readSha('ok2.txt'), replacements: [{ match: 'absent', replacement: 'x' }] },
      ],
    });
    assert.equal(r.env.status, 'failed');
    assert.equal(r.env.data.index, 2);
    assert.equal(bytes('ok1.txt').toString(), 'one\n');
    assert.equal(existsSync(join(ws, 'fresh.txt')), false);
    const dup = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'd.txt', content: 'a' }, { operation: 'create', path: './d.txt', content: 'b' }] });
    assert.equal(dup.env.error?.code, 'BAD_REQUEST');
  });

  it('create never overwrites; a write through a symlinked folder that leads out is refused', async () => {
    w('exists.txt', 'keep\n');
    let r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'exists.txt', content: 'clobber\n' }] });
    assert.equal(r.env.error?.code, 'PATH_EXISTS');
    assert.equal(bytes('exists.txt').toString(), 'keep\n');
    const outside = mkdtempSync('/tmp/hf-outside-');
    try {
      symlinkSync(outside, join(ws, 'escape'));
      r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'escape/pwned.txt', content: 'x' }] });
      assert.equal(r.env.error?.code, 'PATH_OUTSIDE_WORKSPACE');
      r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'escape/new/deeper/pwned.txt', content: 'x' }] });
      assert.equal(r.env.error?.code, 'PATH_OUTSIDE_WORKSPACE');
      assert.equal(existsSync(join(outside, 'pwned.txt')), false);
      assert.equal(existsSync(join(outside, 'new')), false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: '../evil.txt', content: 'x' }] });
    assert.equal(r.env.error?.code, 'PATH_OUTSIDE_WORKSPACE');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: '/tmp/evil.txt', content: 'x' }] });
    assert.equal(r.env.error?.code, 'PATH_OUTSIDE_WORKSPACE');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: '.git/hooks/pre-commit', content: 'x' }] });
    assert.equal(r.env.error?.code, 'POLICY_DENIED');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: '.holdfast.yaml', content: 'security: {}\n' }] });
    assert.equal(r.env.error?.code, 'POLICY_DENIED');
  });

  it('create makes folders; rename moves without replacing; the mode of a file is kept', async () => {
    let r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'made/deep/new.sh', content: '#!/bin/sh\necho hi\n' }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    chmodSync(join(ws, 'made/deep/new.sh'), 0o755);
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'made/deep/new.sh', base_sha256: await readSha('made/deep/new.sh'), replacements: [{ match: 'hi', replacement: 'hello' }] }] });
    assert.equal(statSync(join(ws, 'made/deep/new.sh')).mode & 0o777, 0o755);
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'rename', path: 'made/deep/new.sh', new_path: 'made/run.sh' }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(existsSync(join(ws, 'made/run.sh')), true);
    w('other.txt', 'o');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'rename', path: 'made/run.sh', new_path: 'other.txt' }] });
    assert.equal(r.env.error?.code, 'PATH_EXISTS');
    assert.equal(bytes('other.txt').toString(), 'o');
  });

  it('idempotency_key: the same arguments replay the first receipt without writing; other arguments conflict', async () => {
    w('idem.txt', 'start\n');
    const base = await readSha('idem.txt');
    const args = { remote_session_id: rs, idempotency_key: 'k-1', edits: [{ operation: 'update', path: 'idem.txt', base_sha256: base, content: 'once\n' }] };
    const a = await call('edit', args);
    assert.equal(a.env.status, 'succeeded', a.text);
    w('idem.txt', 'changed after\n');
    const b = await call('edit', args);
    assert.equal(b.env.data.edit_id, a.env.data.edit_id);
    assert.equal(b.env.hints.idempotent_replay, true);
    assert.equal(bytes('idem.txt').toString(), 'changed after\n', 'not written again');
    const c = await call('edit', { ...args, edits: [{ ...args.edits[0]!, content: 'other\n' }] });
    assert.equal(c.env.error?.code, 'IDEMPOTENCY_CONFLICT');
  });

  it('dry_run validates and returns the diff without writing', async () => {
    w('dry.txt', 'a\nb\n');
    const r = await call('edit', { remote_session_id: rs, dry_run: true, edits: [{ operation: 'update', path: 'dry.txt', base_sha256: await readSha('dry.txt'), replacements: [{ match: 'b', replacement: 'c' }] }] });
    assert.equal(r.env.status, 'succeeded');
    assert.equal(r.env.data.dry_run, true);
    assert.match(r.env.data.diff as string, /^-b$/m);
    assert.match(r.env.data.diff as string, /^\+c$/m);
    assert.equal(bytes('dry.txt').toString(), 'a\nb\n');
  });

  it('the whole diff pages through observe(view="diff")', async () => {
    const lines = Array.from({ length: 600 }, (_, i) => `row ${i}`);
    w('paged.txt', lines.join('\n') + '\n');
    const r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'paged.txt', base_sha256: await readSha('paged.txt'), content: lines.map((l, i) => (i % 2 ? l.toUpperCase() : l)).join('\n') + '\n' }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(r.env.data.diff_truncated, true);
    let next = r.env.actions.find((a) => a.tool === 'observe');
    let text = '';
    let pages = 0;
    while (next) {
      const p = await call(next.tool, next.arguments);
      text += p.env.data.content as string;
      next = p.env.actions[0];
      pages++;
    }
    assert.ok(pages > 1);
    assert.equal(text.split('\n').length - 1, r.env.data.diff_lines);
    assert.equal((text.match(/^\+ROW /gm) ?? []).length, 300);
    const other = await fx.caller('intruder')('observe', { view: 'diff', remote_session_id: rs, edit_id: r.env.data.edit_id });
    assert.equal(other.env.error?.code, 'SESSION_NOT_FOUND');
  });

  it('undo restores the previous bytes while the file has the sha the edit wrote; not after someone changed it', async () => {
    w('undo.txt', 'original\r\n');
    const before = sha(bytes('undo.txt'));
    await replace('undo.txt', 'original', 'edited');
    let r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'undo', path: 'undo.txt' }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(sha(bytes('undo.txt')), before);
    await replace('undo.txt', 'original', 'again');
    w('undo.txt', 'someone else\n');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'undo', path: 'undo.txt' }] });
    assert.equal(r.env.error?.code, 'UNDO_UNAVAILABLE');
    await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'created.txt', content: 'c' }] });
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'undo', path: 'created.txt' }] });
    assert.equal(r.env.error?.code, 'UNDO_UNAVAILABLE');
    assert.equal(r.env.actions[0]?.tool, 'move_out');
  });

  it('limits: more than 1000 changed lines, or more files than the project allows, are refused', async () => {
    w('many.txt', Array.from({ length: 1200 }, (_, i) => `l${i}`).join('\n') + '\n');
    let r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'many.txt', base_sha256: await readSha('many.txt'), content: Array.from({ length: 1200 }, (_, i) => `L${i}`).join('\n') + '\n' }] });
    assert.equal(r.env.error?.code, 'LIMIT_EXCEEDED');
    w('.holdfast.yaml', 'security:\n  files:\n    max_patch_files: 1\n');
    r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'p1.txt', content: '1' }, { operation: 'create', path: 'p2.txt', content: '2' }] });
    assert.equal(r.env.error?.code, 'LIMIT_EXCEEDED');
    rmSync(join(ws, '.holdfast.yaml'));
  });

  it('verify_command runs after the write under the execute policy: a failing check is completed_with_issues with the edit applied; a refused one refuses the edit before any write', async () => {
    w('v.txt', 'v1\n');
    let r = await replace('v.txt', 'v1', 'v2', { verify_command: 'grep -q v2 v.txt' });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(r.env.data.verify.passed, true);
    const task = await call('observe', { view: 'task', remote_session_id: rs, execution_task_id: r.env.data.verify.execution_task_id });
    assert.equal(task.env.status, 'succeeded', task.text);
    assert.equal(task.env.data.exit_code, 0);
    r = await replace('v.txt', 'v2', 'v3', { verify_command: 'grep -q nothing-like-this v.txt' });
    assert.equal(r.env.status, 'completed_with_issues');
    assert.equal(r.env.data.verify.ran, true);
    assert.equal(r.env.data.verify.exit_code, 1);
    assert.equal(bytes('v.txt').toString(), 'v3\n');
    r = await replace('v.txt', 'v3', 'v4', { verify_command: 'rm -f v.txt' });
    assert.equal(r.env.status, 'failed', r.text);
    assert.equal(r.env.error!.code, 'POLICY_DENIED');
    assert.equal(bytes('v.txt').toString(), 'v3\n', 'nothing was written');
    const without = r.env.actions.find((a) => a.tool === 'edit');
    assert.ok(without && !('verify_command' in without.arguments), JSON.stringify(r.env.actions));
  });

  it('a verify_command still running after limits.verify_wait_ms comes back as a task to attach to, the edit applied', async () => {
    w('slow.txt', 's1\n');
    const started = Date.now();
    const r = await replace('slow.txt', 's1', 's2', { verify_command: 'sleep 100' });
    const took = Date.now() - started;
    assert.ok(took < 10_000, `the edit answered after ${took} ms, not after the verify's 60 s`);
    assert.equal(r.env.status, 'completed_with_issues', r.text);
    assert.equal(bytes('slow.txt').toString(), 's2\n', 'the edit is applied');
    assert.equal(r.env.data.verify.ran, true);
    assert.equal(r.env.data.verify.state, 'running');
    const id = r.env.data.verify.execution_task_id as string;
    assert.match(id, /^task_/);
    const attach = r.env.actions.find((a) => a.tool === 'execute' && a.arguments.action === 'attach');
    assert.ok(attach, JSON.stringify(r.env.actions));
    assert.equal(attach.arguments.execution_task_id, id);
    assert.match(r.text, /still running/);
    const stopped = await call('execute', { action: 'stop', remote_session_id: rs, execution_task_id: id });
    assert.notEqual(stopped.env.data.state, 'running', stopped.text);
  });

  it('a file with a second hard link is edited in place: both names see it, same inode (issue 9)', async () => {
    w('linked.txt', 'one\ntwo\n');
    const { linkSync } = await import('node:fs');
    linkSync(join(ws, 'linked.txt'), join(ws, 'other-name.txt'));
    const ino = statSync(join(ws, 'linked.txt')).ino;
    const r = await replace('linked.txt', 'two', 'TWO');
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(bytes('other-name.txt').toString(), 'one\nTWO\n', 'the other name sees the edit');
    assert.equal(statSync(join(ws, 'linked.txt')).ino, ino, 'the same inode');
    assert.deepEqual([r.env.data.files[0].hard_links, r.env.data.files[0].written_in_place], [2, true]);
    assert.match(r.text, /written in place \(2 hard links: every name sees the change\)/);
    // Undo goes back in place too.
    const u = await call('edit', { remote_session_id: rs, edits: [{ operation: 'undo', path: 'linked.txt' }] });
    assert.equal(u.env.status, 'succeeded', u.text);
    assert.equal(bytes('other-name.txt').toString(), 'one\ntwo\n');
    // Variant: a whole-content update of the other name, three names now.
    linkSync(join(ws, 'linked.txt'), join(ws, 'third-name.txt'));
    const c = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'other-name.txt', base_sha256: await readSha('other-name.txt'), content: 'replaced\n' }] });
    assert.equal(c.env.status, 'succeeded', c.text);
    assert.deepEqual([bytes('linked.txt').toString(), bytes('third-name.txt').toString()], ['replaced\n', 'replaced\n']);
  });

  it('read tracking survives a daemon restart (kill -9)', async () => {
    w('persist.txt', 'p1\n');
    const base = await readSha('persist.txt');
    await fx.restartDaemon();
    const r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'update', path: 'persist.txt', base_sha256: base, content: 'p2\n' }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(bytes('persist.txt').toString(), 'p2\n');
  });
});
