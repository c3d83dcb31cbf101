import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';
import { sha256 } from './_harness/files.js';

/**
 * Issue 8 items 5, 7, 8 (history) and 9 (read): two conversations (two MCP transport sessions)
 * share one holdfast session under the default `workspace` affinity. What one read says nothing
 * about the other; `session(open)` says where the shared shell is; texts carry the full sha256;
 * conflicting range forms are refused; history lists newest first.
 */
describe('two conversations on one session (issue 8)', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let one: Client;
  let two: Client;
  let rs: string;
  const content = 'line one\nline two\nline three\nline four\n';

  before(async () => {
    mkdirSync(join(h.workspace, 'src'));
    writeFileSync(join(h.workspace, 'notes.txt'), content);
    a = await startAdapter(h);
    one = await httpClient(a.url, ownerToken(h), 'legacy');
    two = await httpClient(a.url, ownerToken(h), 'legacy');
    rs = (await openSession(one, { action: 'open', workspace: 'ws' })).id;
    await callTool(one, 'execute', { remote_session_id: rs, command: 'true', yield_time_ms: 30_000 });
  });
  after(async () => {
    await one.close();
    await two.close();
    await a.stop();
    await h.cleanup();
  });

  it('session(open) says the shell moved when another conversation did cd', async () => {
    const cd = await callTool(one, 'execute', { remote_session_id: rs, command: 'cd src', yield_time_ms: 10_000 });
    assert.equal(cd.env.data?.exit_code, 0, cd.text);
    const o = await openSession(two, { action: 'open', workspace: 'ws' });
    assert.equal(o.id, rs, 'the same session (workspace affinity)');
    assert.equal(o.env.data!.cwd, join(h.workspace, 'src'));
    assert.match(String((await callTool(two, 'session', { action: 'open', workspace: 'ws' })).text), /The shell is in .*src, not the workspace root/);
    await callTool(one, 'execute', { remote_session_id: rs, command: 'cd ..', yield_time_ms: 10_000 });
    const back = await openSession(two, { action: 'open', workspace: 'ws' });
    assert.equal(back.env.data!.cwd, h.workspace);
  });

  it('"unchanged since you read it" is per conversation, and the text carries the full sha256', async () => {
    const full = sha256(content);
    const first = await callTool(one, 'read', { remote_session_id: rs, path: 'notes.txt' });
    assert.equal(first.isError, false, first.text);
    assert.ok(first.text.includes(full), `the text shows all 64 hex digits: ${first.text.slice(0, 200)}`);
    const again = await callTool(one, 'read', { remote_session_id: rs, path: 'notes.txt' });
    assert.match(again.text, /unchanged since you read it in this conversation/);
    assert.ok(again.text.includes(full));
    const other = await callTool(two, 'read', { remote_session_id: rs, path: 'notes.txt' });
    assert.doesNotMatch(other.text, /unchanged/, 'the other conversation never saw it');
    assert.match(String(other.env.data?.content), /line three/);
  });

  it('read-before-edit is per conversation; READ_REQUIRED and SHA_MISMATCH texts carry full hashes', async () => {
    writeFileSync(join(h.workspace, 'only-one-read.txt'), 'alpha\n');
    const sha = sha256('alpha\n');
    await callTool(one, 'read', { remote_session_id: rs, path: 'only-one-read.txt' });
    const edit = { remote_session_id: rs, edits: [{ operation: 'update', path: 'only-one-read.txt', base_sha256: sha, replacements: [{ match: 'alpha', replacement: 'beta' }] }] };
    const refused = await callTool(two, 'edit', edit);
    assert.equal(refused.env.error?.code, 'READ_REQUIRED', refused.text);
    assert.ok(refused.text.includes(sha), refused.text);
    const stale = await callTool(one, 'edit', { ...edit, edits: [{ ...edit.edits[0], base_sha256: 'a'.repeat(64) }] });
    assert.equal(stale.env.error?.code, 'SHA_MISMATCH', stale.text);
    assert.ok(stale.text.includes(sha) && stale.text.includes('a'.repeat(64)), stale.text);
    const ok = await callTool(one, 'edit', edit);
    assert.equal(ok.env.status, 'succeeded', ok.text);
    assert.equal(readFileSync(join(h.workspace, 'only-one-read.txt'), 'utf8'), 'beta\n');
  });

  it('a path range and start_line together are BAD_REQUEST, not a silent choice', async () => {
    const r = await callTool(one, 'read', { remote_session_id: rs, path: 'notes.txt:2-3', start_line: 1 });
    assert.equal(r.env.error?.code, 'BAD_REQUEST', r.text);
    assert.match(r.env.error!.message, /one way/);
    const off = await callTool(one, 'read', { remote_session_id: rs, path: 'notes.txt:2-3', offset: 0, force: true });
    assert.equal(off.env.error?.code, 'BAD_REQUEST', off.text);
    const fine = await callTool(one, 'read', { remote_session_id: rs, path: 'notes.txt:2-3', force: true });
    assert.equal(fine.isError, false, fine.text);
    assert.match(String(fine.env.data?.content), /^line two\nline three\n?$/);
  });

  it('observe(view="history") lists the newest events first, pages backwards, and order=oldest reverses it', async () => {
    const newest = await callTool(one, 'observe', { view: 'history', remote_session_id: rs, limit: 3 });
    const seqs = (newest.env.data!.events as { seq: number }[]).map((e) => e.seq);
    assert.equal(seqs.length, 3);
    assert.deepEqual([...seqs].sort((x, y) => y - x), seqs, 'descending');
    assert.equal(newest.env.data!.more, true);
    const next = newest.env.actions.find((x) => x.tool === 'observe')!;
    assert.equal(next.arguments.before_seq, seqs[2]);
    const older = await callTool(one, 'observe', next.arguments);
    const olderSeqs = (older.env.data!.events as { seq: number }[]).map((e) => e.seq);
    assert.ok(olderSeqs.every((x) => x < seqs[2]!), 'the next page is older');
    const oldest = await callTool(one, 'observe', { view: 'history', remote_session_id: rs, limit: 3, order: 'oldest' });
    const up = (oldest.env.data!.events as { seq: number }[]).map((e) => e.seq);
    assert.deepEqual([...up].sort((x, y) => x - y), up, 'ascending');
    assert.ok(up[0]! < seqs[2]!);
  });
});
