import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DaemonClient } from '@holdfast/adapter/daemon-client';
import { pollUntil, TestHome } from './_harness/home.js';
import { serveRefusal } from './_harness/mcp-adapter.js';
import type { Envelope, ToolReply } from './_harness/tools.js';

/**
 * Issue 18 items 8 and 10: a principal's open never reclaims another principal's used session,
 * any tool use (file tools too) counts as activity, principal names cannot collide with the
 * reserved ones, and concurrent opens wait in a bounded spawn queue instead of timing out.
 */
const TOOLS = ['workspace', 'session', 'read', 'observe', 'execute'];

/** A caller for `principal`, optionally with the adapter's affinity. */
function caller(c: DaemonClient, principal: string, affinity?: 'thread') {
  return async (tool: string, args: Record<string, unknown>): Promise<ToolReply> => {
    const r = await c.call('tool.call', { tool, arguments: args, context: { principal, allowed_tools: TOOLS, ...(affinity ? { affinity } : {}) } }, { deadlineMs: 120_000, retry: 'never' });
    return { env: r.structuredContent as unknown as Envelope, text: r.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), isError: r.isError, raw: r };
  };
}

async function open(call: (tool: string, args: Record<string, unknown>) => Promise<ToolReply>): Promise<string> {
  const r = await call('session', { action: 'open', workspace: 'ws' });
  assert.equal(r.env.status, 'succeeded', r.text);
  return r.env.data.remote_session_id as string;
}

describe('quota reclaim takes only the caller\'s own or never-used sessions (issue 18)', () => {
  const h = new TestHome({ sessions: { max_live: 2 } });
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it("an open of another principal never ends a session someone is using, only a never-used one", async () => {
    const c = h.client();
    writeFileSync(join(h.workspace, 'notes.txt'), 'n\n');
    const alice = caller(c, 'alice');
    const sA = await open(alice);
    const read = await alice('read', { remote_session_id: sA, path: 'notes.txt' });
    assert.equal(read.env.status, 'succeeded', read.text);
    const sB = await open(caller(c, 'bob')); // never used after its open
    const sC = await open(caller(c, 'carol')); // the quota is full: something must be reclaimed
    const states = new Map((await c.call('session.list', { all: true })).sessions.map((s) => [s.remote_session_id, s.state]));
    assert.equal(states.get(sA), 'running', "carol's open ended alice's session, which alice was using");
    assert.notEqual(states.get(sB), 'running', "bob's never-used session was the one to reclaim");
    assert.equal(states.get(sC), 'running');
  });
});

describe('tool use is activity, principal names, bounded spawn queue (issue 18)', () => {
  const h = new TestHome({ sessions: { ttl_never_executed_s: 3, reaper_interval_ms: 200, max_live: 10, spawn: { concurrency: 1, queue: 1 } } });
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('reading files keeps a session alive past its idle TTL; once the reads stop it is reaped', async () => {
    const c = h.client();
    writeFileSync(join(h.workspace, 'a.txt'), 'a\n');
    const dave = caller(c, 'dave');
    const rs = await open(dave);
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      const r = await dave('read', { remote_session_id: rs, path: 'a.txt', force: true });
      assert.equal(r.env.status, 'succeeded', `the session was reaped while in use: ${r.text}`);
      await new Promise((res) => setTimeout(res, 500)); // the agent's think time between calls
    }
    await pollUntil('the idle session to be reaped', async () => (await c.call('session.get', { id: rs })).session.state !== 'running', 10_000, 200);
  });

  it('concurrent opens beyond the spawn queue are refused at once with a retryable SPAWN_QUEUE_FULL', async () => {
    const c = h.client();
    const erin = caller(c, 'erin', 'thread');
    const results = await Promise.all(Array.from({ length: 6 }, () => erin('session', { action: 'open', workspace: 'ws' })));
    const ok = results.filter((r) => r.env.status === 'succeeded');
    const full = results.filter((r) => r.env.error?.code === 'SPAWN_QUEUE_FULL');
    assert.equal(ok.length + full.length, results.length, results.map((r) => r.text).join('\n'));
    assert.ok(ok.length >= 2, 'one start and one waiting open should succeed');
    assert.ok(full.length >= 1, 'nothing was refused: the spawn queue is not bounded');
    assert.ok(full.every((r) => r.env.error!.retryable), 'SPAWN_QUEUE_FULL must be retryable');
    const again = await erin('session', { action: 'open', workspace: 'ws' });
    assert.equal(again.env.status, 'succeeded', again.text);
  });

  it('a principals file may not name a principal owner (any case) or oauth:…', async () => {
    writeFileSync(join(h.home, 'p.token'), `${'t'.repeat(40)}\n`, { mode: 0o600 });
    for (const name of ['owner', 'Owner', 'oauth:ci']) {
      const file = join(h.home, `principals-${name.replace(/\W/g, '_')}.yaml`);
      writeFileSync(file, `principals:\n  - name: ${JSON.stringify(name)}\n    token_file: p.token\n`);
      const r = await serveRefusal(h, ['--http', '--bind', '127.0.0.1:0', '--principal-config', file]);
      assert.notEqual(r.code, 0, `${name}: ${r.stdout}`);
      assert.match(r.stderr, /reserved/, `${name}: ${r.stderr}`);
    }
  });
});
