import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { TestHome } from './_harness/home.js';
import { httpClient, openSession, run, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

const TOKEN_A = 'a'.repeat(40);
const TOKEN_B = 'b'.repeat(40);

describe('task logs as MCP resources (issue 5)', () => {
  const h = new TestHome();
  let adapter: AdapterProcess;
  let alice: Client;
  let bob: Client;
  before(async () => {
    for (const [n, t] of [['a', TOKEN_A], ['b', TOKEN_B]] as const) writeFileSync(join(h.home, `${n}.token`), t, { mode: 0o600 });
    writeFileSync(
      join(h.home, 'principals.yaml'),
      `principals:\n  - name: alice\n    token_file: ${join(h.home, 'a.token')}\n  - name: bob\n    token_file: ${join(h.home, 'b.token')}\n`,
      { mode: 0o600 },
    );
    await h.startDaemon();
    adapter = await startAdapter(h, ['--principal-config', join(h.home, 'principals.yaml')]);
    alice = await httpClient(adapter.url, TOKEN_A, { pin: '2026-07-28' });
    bob = await httpClient(adapter.url, TOKEN_B, 'legacy');
  });
  after(async () => {
    await alice?.close();
    await bob?.close();
    await adapter?.stop();
    await h.cleanup();
  });

  it('lists the template, lists and reads a task log; another principal and unknown URIs get -32602', async () => {
    const { resourceTemplates } = await alice.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'holdfast://remote-sessions/{remote_session_id}/tasks/{execution_task_id}/logs'));

    const { id } = await openSession(alice, { workspace: 'ws' });
    const r = await run(alice, id, 'echo resource-body');
    const uri = String(r.env.data!.log_uri);
    assert.match(uri, /^holdfast:\/\/remote-sessions\/rs_[0-9A-Z]{26}\/tasks\/task_[0-9A-Z]{26}\/logs$/);

    const { resources } = await alice.listResources();
    assert.ok(resources.some((x) => x.uri === uri), 'the task log is listed for its owner');
    const read = await alice.readResource({ uri });
    const text = read.contents.map((c) => ('text' in c ? c.text : '')).join('');
    assert.match(text, /resource-body/);

    const bobs = await bob.listResources();
    assert.ok(!bobs.resources.some((x) => x.uri === uri), 'never listed for another principal');
    await assert.rejects(bob.readResource({ uri }), (e: unknown) => (e as { code?: number }).code === -32602);
    await assert.rejects(alice.readResource({ uri: 'holdfast://remote-sessions/rs_01ARZ3NDEKTSV4RRFFQ69G5FAV/tasks/task_01ARZ3NDEKTSV4RRFFQ69G5FAV/logs' }), (e: unknown) => (e as { code?: number }).code === -32602);
    await assert.rejects(alice.readResource({ uri: 'file:///etc/passwd' }), (e: unknown) => (e as { code?: number }).code === -32602);
  });
});
