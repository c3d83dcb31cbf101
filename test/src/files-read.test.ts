import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { FILE_TOOLS, FileToolsFixture, sha256 as sha, utf16le } from './_harness/files.js';
import { toolCaller } from './_harness/tools.js';
import { moreCall } from './_harness/text-calls.js';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
/** A solid-colour RGB PNG (no image library needed). */
function makePng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x66)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Resident memory of a process, bytes (from /proc). */
function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

describe('read: workspace files, byte-exact facts (issue 4)', () => {
  const fx = new FileToolsFixture();
  const { h, ws } = fx;
  const call = (tool: string, args: Record<string, unknown>): ReturnType<FileToolsFixture['call']> => fx.call(tool, args);
  let rs = '';
  let sock: Server | null = null;
  const w = (rel: string, data: string | Buffer): void => fx.write(rel, data);

  before(async () => {
    await fx.start();
    rs = fx.rs;
  });
  after(async () => {
    sock?.close();
    await fx.stop();
  });

  it('lines 1-3 of a 1002-line file come back as exactly 3 lines (start/end_line and path:1-3)', async () => {
    w('long.txt', Array.from({ length: 1002 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const a = await call('read', { remote_session_id: rs, path: 'long.txt', start_line: 1, end_line: 3 });
    assert.equal(a.env.status, 'succeeded');
    assert.equal(a.env.data.content, 'line 1\nline 2\nline 3\n');
    assert.equal(a.env.data.start_line, 1);
    assert.equal(a.env.data.end_line, 3);
    assert.equal(a.env.data.total_lines, 1002);
    assert.equal(a.env.data.sha256, sha(readFileSync(join(ws, 'long.txt'))));
    const b = await call('read', { remote_session_id: rs, path: 'long.txt:1-3', force: true });
    assert.equal(b.env.data.content, 'line 1\nline 2\nline 3\n');
    const tail = await call('read', { remote_session_id: rs, path: 'long.txt', offset: -2 });
    assert.equal(tail.env.data.content, 'line 1001\nline 1002\n');
    assert.equal(tail.env.data.mime_type, 'text/plain');
  });

  it('a window cut inside a long line continues inside it: following the actions rebuilds the file exactly', async () => {
    const long = 'x'.repeat(2_500_000);
    w('wide.txt', `head\n${long}\ntail\n`);
    let args: Record<string, unknown> | undefined = { remote_session_id: rs, path: 'wide.txt' };
    let text = '';
    let sawLineByteOffset = false;
    for (let i = 0; args && i < 30; i++) {
      const r = await call('read', args);
      assert.equal(r.env.status, 'succeeded');
      text += r.env.data.content as string;
      const next = r.env.actions.find((a) => a.tool === 'read');
      if (next && 'line_byte_offset' in next.arguments) sawLineByteOffset = true;
      args = next?.arguments;
    }
    assert.ok(sawLineByteOffset, 'a continuation carried offset and line_byte_offset');
    assert.equal(sha(text), sha(`head\n${long}\ntail\n`));
  });

  it('the default window is 256 KiB (limits.read_window_bytes)', async () => {
    w('quarter.txt', 'abcdefghijklmnopqrstuvwxyz01234\n'.repeat(40_000)); // 1.28 MB
    const r = await call('read', { remote_session_id: rs, path: 'quarter.txt' });
    const bytes = Buffer.byteLength(r.env.data.content as string);
    assert.ok(bytes <= 256 * 1024 && bytes > 250 * 1024, `a window of ${bytes} bytes`);
    assert.equal(r.env.data.next.offset, bytes / 32, 'the next window starts at the first line not shown');
  });

  it('paging cursors are exact for multi-byte UTF-8 and CRLF: following the text blocks alone, or the actions, rebuilds the file', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `línea ${i} 名前 🙂 ${'é'.repeat(i % 7)}`);
    const long = '名🙂é'.repeat(40_000); // one 360 KB line: cut by the window and by the text block
    const raw = `${lines.join('\r\n')}\r\n${long}\r\ntail é\r\n`;
    w('paging.txt', raw);
    const want = raw.replace(/\r\n/g, '\n');
    // 1. A client that shows the model only the text block: follow the cursor its note names.
    let text = '';
    let args: Record<string, unknown> | undefined = { remote_session_id: rs, path: 'paging.txt' };
    let reads = 0;
    while (args) {
      assert.ok(++reads < 200, 'the text cursors make progress');
      const r = await call('read', args);
      assert.equal(r.env.status, 'succeeded', r.text);
      const header = r.text.slice(0, r.text.indexOf('\n'));
      const body = r.text.slice(r.text.indexOf('\n') + 1);
      const note = /\[… the text block shows the first (\d+) of \d+ bytes(?:; continue the text with read\(path="paging.txt", offset=(-?\d+)(?:, line_byte_offset=(\d+))?\))?; the whole window/.exec(body);
      if (note) {
        assert.ok(note[2] !== undefined, `a cut text block names where its text ends: ${body.slice(-300)}`);
        // The header names the lines the text block shows, and the window's apart (fresh-user
        // review: it said "lines 1-8643" while the text showed 1-608 and went on at 608).
        const range = /^paging\.txt · (?:lines (\d+)-(\d+)(, the last in part)?|part of line (\d+)) \(of a (\d+)-(\d+) window\) of \d+ · /.exec(header);
        assert.ok(range, `the header of a cut text block says what it shows: ${header}`);
        const shownEnd = Number(range[2] ?? range[4]);
        const inPart = range[3] !== undefined || range[4] !== undefined;
        assert.equal(Number(note[2]), inPart ? shownEnd - 1 : shownEnd, `the footer goes on after the shown lines: ${header} / ${body.slice(-200)}`);
        assert.equal(note[3] !== undefined, inPart, `a line shown in part continues inside it: ${header}`);
        assert.ok(shownEnd <= Number(range[6]) && Number(range[6]) <= r.env.data.end_line, 'the window is structuredContent\'s');
        text += Buffer.from(body).subarray(0, Number(note[1])).toString('utf8');
        args = { remote_session_id: rs, path: 'paging.txt', offset: Number(note[2]), ...(note[3] ? { line_byte_offset: Number(note[3]) } : {}) };
      } else {
        const more = /\n\[more: read\(path="paging.txt", offset=(-?\d+)(?:, line_byte_offset=(\d+))?\)\]$/.exec(body);
        text += more ? body.slice(0, more.index) : body;
        args = more ? { remote_session_id: rs, path: 'paging.txt', offset: Number(more[1]), ...(more[2] ? { line_byte_offset: Number(more[2]) } : {}) } : undefined;
      }
    }
    assert.equal(text.length, want.length, 'the text blocks, followed, hold every character once');
    assert.equal(sha(text), sha(want));
    // 2. A client that reads structuredContent: data.content and the read action.
    let content = '';
    args = { remote_session_id: rs, path: 'paging.txt' };
    while (args) {
      const r = await call('read', { ...args, force: true });
      content += r.env.data.content as string;
      args = r.env.actions.find((a) => a.tool === 'read')?.arguments;
    }
    assert.equal(sha(content), sha(want));
  });

  it('mode=full returns the whole file up to 4 MiB; a larger file is refused with a window read as the next step', async () => {
    w('five.bin.txt', 'y'.repeat(5 * 1024 * 1024));
    const r = await call('read', { remote_session_id: rs, path: 'five.bin.txt', mode: 'full' });
    assert.equal(r.env.status, 'failed');
    assert.equal(r.env.error?.code, 'FILE_TOO_LARGE');
    assert.equal(r.env.actions[0]?.arguments.mode, 'window');
    w('small.ts', 'export const a = 1;\r\n');
    const ok = await call('read', { remote_session_id: rs, path: 'small.ts', mode: 'full' });
    assert.equal(ok.env.data.content, 'export const a = 1;\n');
    assert.equal(ok.env.data.mime_type, 'text/typescript');
    assert.deepEqual(ok.env.data.format, { charset: 'utf-8', bom: false, line_ending: 'CRLF', line_ending_counts: { lf: 0, crlf: 1, cr: 0 }, final_newline: true });
  });

  it('a UTF-16LE file with BOM is shown as text with its format', async () => {
    w('utf16.txt', utf16le('Grüße\r\nzweite Zeile\r\n'));
    const r = await call('read', { remote_session_id: rs, path: 'utf16.txt' });
    assert.equal(r.env.data.content, 'Grüße\nzweite Zeile\n');
    assert.equal(r.env.data.format.charset, 'utf-16le');
    assert.equal(r.env.data.format.bom, true);
    assert.equal(r.env.data.format.line_ending, 'CRLF');
  });

  it('images are recognised by content and come back as image content, scaled to ≤ 2560 px', async () => {
    const png = makePng(4000, 200);
    w('pics/wide.txt', png);
    const r = await call('read', { remote_session_id: rs, path: 'pics/wide.txt' });
    assert.equal(r.env.status, 'succeeded');
    assert.equal(r.env.data.kind, 'image');
    assert.equal(r.env.data.mime_type, 'image/png');
    assert.equal(r.env.data.width, 4000);
    assert.ok((r.env.data.shown.width as number) <= 2560);
    const c = h.client();
    const raw = await c.call('tool.call', { tool: 'read', arguments: { remote_session_id: rs, path: 'pics/wide.txt', force: true }, context: { principal: 'p', allowed_tools: FILE_TOOLS } });
    const img = raw.content.find((b) => b.type === 'image');
    assert.ok(img && img.type === 'image');
    const shown = Buffer.from(img.data, 'base64');
    assert.ok(shown.length <= 2 * 1024 * 1024);
    assert.equal(img.mimeType, 'image/png');
    assert.ok(Math.max(shown.readUInt32BE(16), shown.readUInt32BE(20)) <= 2560, 'IHDR size within 2560 px');
  });

  it('other binary files come back as base64 with their MIME type', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0, 1, 2, 3, 255]);
    w('doc.pdf', bytes);
    const r = await call('read', { remote_session_id: rs, path: 'doc.pdf' });
    assert.equal(r.env.data.kind, 'binary');
    assert.equal(r.env.data.mime_type, 'application/pdf');
    assert.deepEqual(Buffer.from(r.env.data.content_base64 as string, 'base64'), bytes);
  });

  it('an unchanged file read again in the same conversation returns a compact reference unless force', async () => {
    w('same.txt', 'same\n');
    const conv = toolCaller(fx.h.client(), 'p', FILE_TOOLS, { conversation_id: 'conversation-a' });
    const a = await conv('read', { remote_session_id: rs, path: 'same.txt' });
    assert.equal(a.env.data.content, 'same\n');
    const anonymous = await call('read', { remote_session_id: rs, path: 'same.txt' });
    assert.equal(anonymous.env.data.content, 'same\n', 'a caller that names no conversation may be another one: content, not "unchanged"');
    const again = await call('read', { remote_session_id: rs, path: 'same.txt' });
    assert.equal(again.env.data.content, 'same\n');
    const b = await conv('read', { remote_session_id: rs, path: 'same.txt' });
    assert.equal(b.env.type, 'read.unchanged');
    assert.equal(b.env.data.unchanged, true);
    assert.equal(b.env.data.sha256, a.env.data.sha256);
    assert.equal(b.env.data.content, undefined);
    assert.equal(b.env.actions[0]?.arguments.force, true);
    const c = await conv('read', { remote_session_id: rs, path: 'same.txt', force: true });
    assert.equal(c.env.data.content, 'same\n');
  });

  it('items: several reads in request order, each with its own result or error, within max_total_bytes', async () => {
    w('i1.txt', 'one\n');
    w('i2.txt', 'two\n');
    const r = await call('read', { remote_session_id: rs, items: [{ path: 'i2.txt' }, { path: 'missing.txt' }, { path: 'i1.txt' }] });
    assert.equal(r.env.status, 'completed_with_issues');
    const items = r.env.data.items as Record<string, unknown>[];
    assert.deepEqual(items.map((i) => i.status), ['ok', 'failed', 'ok']);
    assert.equal(items[0]!.content, 'two\n');
    assert.equal((items[1]!.error as { code: string }).code, 'PATH_NOT_FOUND');
    assert.equal(items[2]!.content, 'one\n');
    w('big1.txt', 'a'.repeat(3000));
    const s = await call('read', { remote_session_id: rs, items: [{ path: 'big1.txt' }, { path: 'i1.txt', force: true }], max_total_bytes: 3000 });
    assert.equal((s.env.data.items as { status: string }[])[1]!.status, 'skipped');
    assert.equal(s.env.actions.at(-1)?.arguments.path, 'i1.txt');
  });

  it('search: literal and regex, globs, context lines, paged with a cursor to the end', async () => {
    for (let i = 0; i < 12; i++) w(`srch/f${String(i).padStart(2, '0')}.ts`, `const a${i} = 1;\n// NEEDLE ${i}\nconst b = 2;\n`);
    w('srch/notes.md', 'NEEDLE in markdown\n');
    w('srch/ignored/x.ts', '// NEEDLE ignored\n');
    w('srch/.gitignore', 'ignored/\n');
    const first = await call('read', { remote_session_id: rs, view: 'search', path: 'srch', query: 'NEEDLE', include: ['*.ts'], context_lines: 1, limit: 5 });
    assert.equal(first.env.status, 'succeeded');
    assert.equal(first.env.data.total, 12);
    const m0 = (first.env.data.matches as { path: string; line: number; before: { text: string }[]; after: { text: string }[] }[])[0]!;
    assert.equal(m0.path, 'srch/f00.ts');
    assert.equal(m0.line, 2);
    assert.equal(m0.before[0]?.text, 'const a0 = 1;');
    assert.equal(m0.after[0]?.text, 'const b = 2;');
    let all = (first.env.data.matches as unknown[]).length;
    let next = first.env.actions[0];
    while (next) {
      const r = await call('read', next.arguments);
      all += (r.env.data.matches as unknown[]).length;
      next = r.env.actions[0];
    }
    assert.equal(all, 12);
    const re = await call('read', { remote_session_id: rs, view: 'search', path: 'srch', query: 'NEEDLE (1[01])$', mode: 'regex' });
    assert.deepEqual((re.env.data.matches as { path: string }[]).map((m) => m.path), ['srch/f10.ts', 'srch/f11.ts']);
    const md = await call('read', { remote_session_id: rs, view: 'search', path: 'srch', query: 'needle', case_sensitive: false, exclude: ['*.ts'] });
    assert.deepEqual((md.env.data.matches as { path: string }[]).map((m) => m.path), ['srch/notes.md']);
  });

  it('search and list page to the end by their text blocks alone: the last line names the exact next call', async () => {
    // A client that gives the model only the text block (DESIGN §6.3) saw "(more: next_cursor)"
    // while the cursor itself was only in structuredContent.
    for (let i = 0; i < 7; i++) w(`tsrch/f${i}.ts`, `// FINDME ${i}\n`);
    const follow = async (first: Record<string, unknown>, rows: (text: string) => string[]): Promise<{ rows: string[]; pages: number }> => {
      const seen: string[] = [];
      let args: Record<string, unknown> | null = first;
      let pages = 0;
      while (args) {
        assert.ok(++pages < 20, 'the text calls make progress');
        const r = await call('read', args);
        assert.equal(r.env.status, 'succeeded', r.text);
        seen.push(...rows(r.text));
        const next = moreCall(r.text);
        assert.equal(next === null, r.env.actions.length === 0, `a next call in the text exactly when there is a next page: ${r.text}`);
        if (next) {
          assert.equal(next.tool, 'read');
          assert.deepEqual({ remote_session_id: rs, ...next.args }, r.env.actions[0]!.arguments, 'the text names the action\'s call');
        }
        args = next ? { remote_session_id: rs, ...next.args } : null;
      }
      return { rows: seen, pages };
    };
    const search = await follow({ remote_session_id: rs, view: 'search', path: 'tsrch', query: 'FINDME', limit: 3 }, (t) => t.split('\n').filter((l) => /^tsrch\/f\d\.ts:1:/.test(l)));
    assert.equal(search.pages, 3);
    assert.deepEqual(search.rows.map((l) => l.slice(0, 'tsrch/f0.ts'.length)), Array.from({ length: 7 }, (_, i) => `tsrch/f${i}.ts`));
    const files = await follow({ remote_session_id: rs, view: 'list', path: 'tsrch', limit: 2 }, (t) => t.split('\n').filter((l) => /^tsrch\/f\d\.ts$/.test(l)));
    assert.equal(files.rows.length, 7);
    const entries = await follow({ remote_session_id: rs, view: 'list', mode: 'entries', path: 'tsrch', limit: 4 }, (t) => t.split('\n').filter((l) => /^f\d\.ts /.test(l)));
    assert.equal(entries.rows.length, 7);
  });

  it('list: files (recursive, paged) and entries (one level, kinds, policy-filtered count)', async () => {
    mkdirSync(join(ws, 'tree', 'sub'), { recursive: true });
    w('tree/a.txt', 'a');
    w('tree/sub/b.txt', 'b');
    symlinkSync('a.txt', join(ws, 'tree', 'link'));
    execFileSync('mkfifo', [join(ws, 'tree', 'pipe')]);
    const files = await call('read', { remote_session_id: rs, view: 'list', path: 'tree', limit: 1 });
    assert.deepEqual(files.env.data.files, ['tree/a.txt']);
    const more = await call('read', files.env.actions[0]!.arguments);
    assert.deepEqual(more.env.data.files, ['tree/sub/b.txt']);
    const entries = await call('read', { remote_session_id: rs, view: 'list', mode: 'entries', path: 'tree' });
    const kinds = Object.fromEntries((entries.env.data.entries as { name: string; kind: string }[]).map((e) => [e.name, e.kind]));
    assert.deepEqual(kinds, { 'a.txt': 'file', link: 'symlink', pipe: 'other', sub: 'directory' });
    assert.equal(entries.env.data.entries_complete, true);
    mkdirSync(join(ws, '.git'), { recursive: true });
    w('.git/HEAD', 'ref: refs/heads/main\n');
    const root = await call('read', { remote_session_id: rs, view: 'list', mode: 'entries', path: '' });
    assert.equal(root.env.data.entries_policy_filtered, 1);
    assert.ok(!(root.env.data.entries as { name: string }[]).some((e) => e.name === '.git'));
    const page = await call('read', { remote_session_id: rs, view: 'list', mode: 'entries', path: 'tree', limit: 2 });
    assert.equal(page.env.data.entries_complete, false);
    assert.ok(page.env.actions[0]?.arguments.cursor);
  });

  it('context: a bounded bundle of named files and ranges', async () => {
    const r = await call('read', { remote_session_id: rs, view: 'context', purpose: 'review', items: [{ path: 'long.txt', start_line: 10, end_line: 11 }, { path: 'i1.txt' }], max_total_bytes: 10_000 });
    assert.equal(r.env.status, 'succeeded');
    assert.equal(r.env.data.content, '=== long.txt:10-11 ===\nline 10\nline 11\n\n=== i1.txt:1-1 ===\none\n');
    assert.equal(r.env.context.purpose, 'review');
  });

  it('the last window of a 2 GB sparse file is read in constant memory', async () => {
    const path = join(ws, 'huge.log');
    const fd = openSync(path, 'w');
    writeSync(fd, Array.from({ length: 1000 }, (_, i) => `boot ${i}\n`).join(''));
    const size = 2 * 1024 * 1024 * 1024;
    const tail = Array.from({ length: 30 }, (_, i) => `last ${i + 1}\n`).join('');
    ftruncateSync(fd, size - tail.length - 1);
    writeSync(fd, `\n${tail}`, size - tail.length - 1);
    closeSync(fd);
    const daemon = h.daemonPid()!;
    const before = rssBytes(daemon);
    const r = await call('read', { remote_session_id: rs, path: 'huge.log', offset: -20 });
    assert.equal(r.env.status, 'succeeded');
    assert.equal(r.env.data.content, Array.from({ length: 20 }, (_, i) => `last ${i + 11}\n`).join(''));
    assert.equal(r.env.data.size, size);
    assert.ok(rssBytes(daemon) - before < 64 * 1024 * 1024, 'daemon memory stayed flat');
  });

  it('refused quickly with a clear code: outside paths, FIFOs, sockets, devices, policy-denied paths', async () => {
    const code = async (args: Record<string, unknown>): Promise<string | undefined> => (await call('read', { remote_session_id: rs, ...args })).env.error?.code;
    assert.equal(await code({ path: '/etc/passwd' }), 'PATH_OUTSIDE_WORKSPACE');
    assert.equal(await code({ path: '../config.yaml' }), 'PATH_OUTSIDE_WORKSPACE');
    symlinkSync('/etc', join(ws, 'etc-link'));
    assert.equal(await code({ path: 'etc-link/passwd' }), 'PATH_OUTSIDE_WORKSPACE');
    assert.equal(await code({ view: 'search', path: 'etc-link', query: 'root' }), 'PATH_OUTSIDE_WORKSPACE');
    const started = Date.now();
    assert.equal(await code({ path: 'tree/pipe' }), 'UNSUPPORTED_FILE_TYPE');
    assert.ok(Date.now() - started < 2000, 'the FIFO did not block');
    sock = createServer();
    await new Promise<void>((resolve) => sock!.listen(join(ws, 'tree', 's.sock'), resolve));
    assert.equal(await code({ path: 'tree/s.sock' }), 'UNSUPPORTED_FILE_TYPE');
    if (process.getuid?.() === 0) {
      execFileSync('mknod', [join(ws, 'tree', 'null-dev'), 'c', '1', '3']);
      assert.equal(await code({ path: 'tree/null-dev' }), 'UNSUPPORTED_FILE_TYPE');
    }
    assert.equal(await code({ path: '.git/HEAD' }), 'POLICY_DENIED');
    symlinkSync('.git/HEAD', join(ws, 'head-link'));
    assert.equal(await code({ path: 'head-link' }), 'POLICY_DENIED');
    w('private/key.txt', 'k');
    w('.holdfast.yaml', 'security:\n  files:\n    deny: ["^private/"]\n');
    assert.equal(await code({ path: 'private/key.txt' }), 'POLICY_DENIED');
    const search = await call('read', { remote_session_id: rs, view: 'search', query: 'k', path: '' });
    assert.ok(!(search.env.data.matches as { path: string }[]).some((m) => m.path.startsWith('private/')));
    assert.equal(await code({ path: 'nope/missing.txt' }), 'PATH_NOT_FOUND');
  });

  it('search and the code map never read a hidden file through a symlink swapped in during the walk', async () => {
    // race/d flips, by renames, between a folder of the workspace and a symlink to a folder
    // outside it that holds a secret; searches and maps run meanwhile.
    const hidden = join(h.home, 'hidden-src');
    mkdirSync(hidden);
    writeFileSync(join(hidden, 'x.ts'), 'export function hiddenSecretFn() { return "HIDDEN_SECRET_TOKEN"; }\n');
    w('race/d_real/x.ts', 'export function visibleFn() { return "HIDDEN_SECRET_TOKEN is not here"; }\n'.replace('HIDDEN_SECRET_TOKEN', 'harmless'));
    symlinkSync(hidden, join(ws, 'race', 'd_link'));
    const swapper = join(h.home, 'swapper.cjs');
    writeFileSync(
      swapper,
      `const fs = require('node:fs'); const r = ${JSON.stringify(join(ws, 'race'))};
       const mv = (a, b) => { try { fs.renameSync(r + '/' + a, r + '/' + b); } catch {} };
       for (;;) { mv('d_real', 'd'); mv('d', 'd_real'); mv('d_link', 'd'); mv('d', 'd_link'); }`,
    );
    const child = spawn(process.execPath, [swapper], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 60; i++) {
        const found = await call('read', { remote_session_id: rs, view: 'search', path: 'race', query: 'HIDDEN_SECRET_TOKEN' });
        assert.deepEqual(found.env.data?.matches ?? [], [], `search ${i} read the hidden file: ${found.text}`);
        if (i % 3 === 0) {
          const map = await call('read', { remote_session_id: rs, view: 'outline', path: 'race' });
          assert.doesNotMatch(JSON.stringify(map.env.data ?? {}), /hiddenSecretFn/, `map ${i} read the hidden file: ${map.text}`);
          const refs = await call('read', { remote_session_id: rs, view: 'references', query: 'hiddenSecretFn' });
          assert.deepEqual([...(refs.env.data?.definitions ?? []), ...(refs.env.data?.uses ?? [])], [], `references ${i} read the hidden file: ${refs.text}`);
        }
      }
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a session is only usable by its principal', async () => {
    const other = fx.caller('intruder');
    const r = await other('read', { remote_session_id: rs, path: 'i1.txt' });
    assert.equal(r.env.error?.code, 'SESSION_NOT_FOUND');
  });
});
