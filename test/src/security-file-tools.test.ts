import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FILE_TOOLS, FileToolsFixture, sha256 } from './_harness/files.js';
import { isAlive, pollUntil } from './_harness/home.js';
import { toolCaller, type ToolReply } from './_harness/tools.js';

/**
 * Issue 18, file tools: `verify_command` needs `execute` (item 2); a folder swapped for a symlink
 * between the check and the open never lets `read` return or `edit` write outside the workspace
 * (item 3); `edit rename` of a symlink never describes the bytes it points to (item 4); a path too
 * long answers BAD_REQUEST, an edit over 8 MiB goes through, and an audit failure during
 * `verify_command` says exactly what happened (item 10).
 */
describe('file tools under attack (issue 18)', () => {
  const fx = new FileToolsFixture();
  const ws = fx.ws;
  const outside = join(fx.h.home, 'outside');
  const call = (tool: string, args: Record<string, unknown>): Promise<ToolReply> => fx.call(tool, args);
  let rs = '';
  const readSha = async (path: string): Promise<string> => {
    const r = await call('read', { remote_session_id: rs, path, force: true });
    assert.equal(r.env.status, 'succeeded', r.text);
    return r.env.data.sha256 as string;
  };

  before(async () => {
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'SECRET outside the workspace\n');
    await fx.start();
    rs = fx.rs;
  });
  after(() => fx.stop());

  it('verify_command is refused with TOOL_NOT_ALLOWED for a principal without execute, and nothing is written', async () => {
    const narrow = toolCaller(fx.h.client(), 'p', ['workspace', 'session', 'read', 'edit']);
    const r = await narrow('edit', { remote_session_id: rs, verify_command: 'id; head /etc/shadow', edits: [{ operation: 'create', path: 'v.txt', content: 'x\n' }] });
    assert.equal(r.env.status, 'failed', r.text);
    assert.equal(r.env.error?.code, 'TOOL_NOT_ALLOWED');
    assert.equal(existsSync(join(ws, 'v.txt')), false);
    // With execute, the same call runs the check.
    const ok = await call('edit', { remote_session_id: rs, verify_command: 'true', edits: [{ operation: 'create', path: 'v.txt', content: 'x\n' }] });
    assert.equal(ok.env.status, 'succeeded', ok.text);
    assert.equal(ok.env.data.verify.passed, true);
  });

  it('rename of a symlink that points outside never describes the bytes it points to', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link-out'));
    const r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'rename', path: 'link-out', new_path: 'link-moved' }] });
    assert.equal(r.env.status, 'succeeded', r.text);
    const rb = r.env.data.files[0].readback;
    const secretSha = sha256(readFileSync(join(outside, 'secret.txt')));
    assert.ok(!JSON.stringify(r.env).includes(secretSha), 'the readback names the sha256 of the file outside');
    assert.ok(rb === null || (rb.sha256 === undefined && rb.byte_length === undefined && rb.tail_hex === undefined), JSON.stringify(rb));
  });

  it('a folder swapped for a symlink to the outside while read and edit run never leaks or writes outside', async () => {
    mkdirSync(join(ws, 'race'));
    writeFileSync(join(ws, 'race', 'secret.txt'), 'inside\n');
    const before = readdirSync(outside).sort();
    // The racer swaps ws/race between the real folder and a symlink to `outside`, as fast as it can.
    const script = `
      const fs = require('node:fs');
      const [dir, parked, target] = process.argv.slice(1);
      const quiet = (f) => { try { f(); } catch {} };
      for (;;) {
        quiet(() => fs.renameSync(dir, parked));
        quiet(() => fs.symlinkSync(target, dir));
        quiet(() => fs.rmSync(dir, { recursive: true, force: true })); // the link, or a folder an edit made meanwhile
        quiet(() => fs.renameSync(parked, dir));
      }
    `;
    const racer: ChildProcess = spawn(process.execPath, ['-e', script, join(ws, 'race'), join(ws, 'race.parked'), outside], { stdio: 'ignore' });
    const leaks: string[] = [];
    let reads = 0;
    try {
      const deadline = Date.now() + 6000;
      for (let i = 0; Date.now() < deadline && i < 400; i++) {
        const [r, e] = await Promise.all([
          call('read', { remote_session_id: rs, path: 'race/secret.txt', force: true }),
          call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: `race/new-${i}.txt`, content: 'planted\n' }] }),
        ]);
        if (r.env.status === 'succeeded') reads++;
        if (JSON.stringify(r.env.data ?? {}).includes('SECRET')) leaks.push(`read ${i}: ${r.text.slice(0, 120)}`);
        void e;
      }
    } finally {
      racer.kill('SIGKILL');
      await pollUntil('the racer to end', () => !isAlive(racer.pid!), 5000);
    }
    rmSync(join(ws, 'race.parked'), { recursive: true, force: true });
    assert.deepEqual(leaks, [], 'read returned bytes from outside the workspace');
    assert.deepEqual(readdirSync(outside).sort(), before, 'edit created files outside the workspace');
    assert.ok(reads > 0, 'no read got through at all');
  });

  it('a path too long for the filesystem answers BAD_REQUEST, not INTERNAL', async () => {
    for (const path of ['n'.repeat(300), Array.from({ length: 40 }, () => 'd'.repeat(120)).join('/')]) {
      const r = await call('read', { remote_session_id: rs, path });
      assert.equal(r.env.error?.code, 'BAD_REQUEST', `${path.length} chars: ${r.text}`);
      const e = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path, content: 'x' }] });
      assert.equal(e.env.error?.code, 'BAD_REQUEST', e.text);
    }
  });

  it('an edit of more than 8 MiB goes through the control socket (no FRAME_TOO_LARGE)', async () => {
    const content = `${'x'.repeat(9_600)}\n`.repeat(1000); // ≈ 9.6 MB in 1000 lines (max_patch_lines)
    const r = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'big.txt', content }] });
    assert.equal(r.env.status, 'succeeded', r.text.slice(0, 300));
    assert.equal(sha256(readFileSync(join(ws, 'big.txt'))), sha256(content));
  });

  it('when the audit log cannot be written, verify_command says so and the applied edit is reported as applied', async () => {
    writeFileSync(join(ws, 'audited.txt'), 'one\n');
    const base = await readSha('audited.txt');
    rmSync(fx.h.layout.auditLog, { force: true });
    mkdirSync(fx.h.layout.auditLog); // a folder where the log file should be: every append fails
    try {
      const r = await call('edit', { remote_session_id: rs, verify_command: 'true', edits: [{ operation: 'update', path: 'audited.txt', base_sha256: base, content: 'two\n' }] });
      assert.equal(readFileSync(join(ws, 'audited.txt'), 'utf8'), 'two\n');
      assert.equal(r.env.status, 'completed_with_issues', r.text);
      assert.equal(r.env.data.files[0].changed, true);
      assert.equal(r.env.data.verify.ran, false);
      assert.match(r.env.data.verify.reason, /audit log could not be written/);
      assert.match(r.text, /Edited 1 file/);
    } finally {
      rmSync(fx.h.layout.auditLog, { recursive: true, force: true });
    }
  });
});

/** The file tools a narrow principal may call (for the FILE_TOOLS import to stay meaningful). */
void FILE_TOOLS;
