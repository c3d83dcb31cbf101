import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { callTool, useStdioSession } from './_harness/mcp-adapter.js';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
/** A 2×2 RGBA PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP4z8Dwn4GBgYGJAQoAACwDAf8t0hEoAAAAAElFTkSuQmCC',
  'base64',
);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Artifacts (issue 11) through the official MCP client: a 3 MB UTF-16LE file with a BOM read back
 * in pages whose offsets are source bytes and which never split a surrogate pair; a PNG as base64
 * with the file's sha256; a snapshot that later edits of the workspace do not change; the same
 * artifact as an MCP resource.
 */
describe('artifacts over MCP (issue 11)', () => {
  const f = useStdioSession();
  const h = f.h;
  const artifact = (args: Record<string, unknown>) => callTool(f.client, 'artifact', { remote_session_id: f.rs, ...args });

  it('pages a 3 MB UTF-16LE file with BOM in source bytes, never splitting a surrogate pair', async () => {
    const unit = 'line: 😀 ñ 漢字 𝄞 end\r\n';
    const text = unit.repeat(Math.ceil((3 * 1024 * 1024) / (Buffer.byteLength(unit, 'utf16le'))));
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    writeFileSync(join(h.workspace, 'big.txt'), bytes);
    const reg = await artifact({ action: 'register', path: 'big.txt', title: 'Big log', kind: 'log' });
    assert.equal(reg.isError, false, reg.text);
    const d = reg.env.data!;
    assert.equal(d.byte_length, bytes.length);
    assert.equal(d.sha256, sha256(bytes));
    assert.equal(d.source_encoding, 'utf-16le');
    assert.equal(d.source_bom, true);
    const id = d.artifact_id as string;
    assert.match(id, /^ar_[0-9A-Z]{26}$/);

    let offset: number | null = 0;
    let joined = '';
    let pages = 0;
    while (offset !== null) {
      // An odd limit: page ends fall inside code units and surrogate pairs unless the reader aligns them.
      const r = await artifact({ action: 'read', artifact_id: id, source_offset: offset, limit: 999_999 });
      assert.equal(r.isError, false, r.text);
      const page = r.env.data!;
      assert.equal(page.delivery_encoding, 'utf-8');
      assert.equal(page.source_offset, offset);
      const t = page.text as string;
      assert.ok(!LONE_SURROGATE.test(t), `page ${pages} holds no half surrogate pair`);
      const next = page.next_source_offset as number | null;
      const end = next ?? bytes.length;
      // The offsets are bytes of the source: the page is exactly those bytes, decoded.
      assert.equal(t, bytes.subarray(Math.max(offset, 2), end).toString('utf16le'));
      joined += t;
      offset = next;
      pages++;
    }
    assert.ok(pages >= 4, `${pages} pages`);
    assert.equal(joined, text, 'the pages together are the source text');
  });

  it('returns a PNG as base64 with the file\'s sha256; later edits do not change the snapshot; readable as a resource', async () => {
    writeFileSync(join(h.workspace, 'dot.png'), PNG);
    const reg = await artifact({ action: 'register', path: 'dot.png', title: 'Screenshot', kind: 'image' });
    assert.equal(reg.isError, false, reg.text);
    assert.equal(reg.env.data!.mime_type, 'image/png');
    const id = reg.env.data!.artifact_id as string;
    const uri = reg.env.data!.uri as string;
    assert.equal(uri, `holdfast://remote-sessions/${f.rs}/artifacts/${id}`);

    writeFileSync(join(h.workspace, 'dot.png'), Buffer.from('not a png any more'));
    const r = await artifact({ action: 'read', artifact_id: id });
    assert.equal(r.env.data!.delivery_encoding, 'base64');
    assert.equal(r.env.data!.next_source_offset, null);
    assert.equal(sha256(Buffer.from(r.env.data!.base64 as string, 'base64')), sha256(PNG), 'the snapshot, not the edited file');

    const res = await f.client.readResource({ uri });
    const blob = (res.contents[0] as { blob?: string }).blob;
    assert.equal(sha256(Buffer.from(blob ?? '', 'base64')), sha256(PNG));
    assert.equal(res.contents[0]!.mimeType, 'image/png');

    const note = await artifact({ action: 'register', content: 'release notes\n', title: 'Notes', kind: 'report' });
    const noteText = await f.client.readResource({ uri: note.env.data!.uri as string });
    assert.equal((noteText.contents[0] as { text?: string }).text, 'release notes\n');

    const list = await artifact({ action: 'list' });
    assert.deepEqual((list.env.data!.artifacts as { artifact_id: string }[]).slice(0, 2).map((a) => a.artifact_id), [note.env.data!.artifact_id, id], 'newest first');
    const { resourceTemplates } = await f.client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'holdfast://remote-sessions/{remote_session_id}/artifacts/{artifact_id}'));
    await assert.rejects(f.client.readResource({ uri: `holdfast://remote-sessions/${f.rs}/artifacts/ar_01ARZ3NDEKTSV4RRFFQ69G5FAV` }), (e: unknown) => (e as { code?: number }).code === -32602);
  });

  it('refuses what it cannot snapshot', async () => {
    assert.equal((await artifact({ action: 'register', path: '../etc/passwd', title: 'x', kind: 'data' })).env.error?.code, 'PATH_OUTSIDE_WORKSPACE');
    assert.equal((await artifact({ action: 'register', path: '.', title: 'x', kind: 'data' })).env.error?.code, 'UNSUPPORTED_FILE_TYPE');
    assert.equal((await artifact({ action: 'register', content: 'a', content_base64: 'YQ==', title: 'x', kind: 'data' })).env.error?.code, 'BAD_REQUEST');
    assert.equal((await artifact({ action: 'read', artifact_id: 'ar_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).env.error?.code, 'ARTIFACT_NOT_FOUND');
  });
});
