import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, run, startAdapter, type AdapterProcess, type Envelope } from './_harness/mcp-adapter.js';

/**
 * Issue 14, "Must show" — roles between principals: B can neither see nor touch A's session
 * (tools, task-log resources, observe) until A grants a role, and what it gets is the same
 * SESSION_NOT_FOUND as for a session that does not exist; a viewer cannot execute; an approver
 * confirms A's pending `git push` call and it runs once; after handoff A has no role left.
 * (Artifact resources and the observe stream are built by other issues; they call the same
 * `requireSessionAccess`.)
 */
const ALICE = 'alice-token-' + 'a'.repeat(32);
const BOB = 'bob-token-' + 'b'.repeat(32);

describe('session roles between principals', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let alice: Client;
  let bob: Client;
  let rs = '';
  let task = '';

  before(async () => {
    await h.startDaemon({ XDG_DATA_HOME: join(h.home, 'xdg') });
    writeFileSync(join(h.home, 'alice.token'), ALICE + '\n', { mode: 0o600 });
    writeFileSync(join(h.home, 'bob.token'), BOB + '\n', { mode: 0o600 });
    writeFileSync(join(h.home, 'principals.yaml'), 'principals:\n  - name: alice\n    token_file: alice.token\n  - name: bob\n    token_file: bob.token\n');
    a = await startAdapter(h, ['--principal-config', join(h.home, 'principals.yaml')]);
    alice = await httpClient(a.url, ALICE, 'auto');
    bob = await httpClient(a.url, BOB, 'legacy');
    const s = await openSession(alice, { workspace: 'ws' });
    rs = s.id;
    const r = await run(alice, rs, 'echo hello-from-alice');
    task = r.env.context.execution_task_id!;
  });
  after(async () => {
    await alice?.close().catch(() => undefined);
    await bob?.close().catch(() => undefined);
    await a?.kill9();
    await h.cleanup();
  });

  const err = (e: Envelope): { code: string; message: string } => ({ code: e.error!.code, message: e.error!.message.replaceAll(rs, 'RS').replaceAll(ghost(), 'RS') });
  /** A well-formed id of a session that does not exist (A's id with its last character changed). */
  const ghost = (): string => rs.slice(0, -1) + (rs.endsWith('Z') ? 'Y' : 'Z');
  const logUri = (id: string): string => `holdfast://remote-sessions/${id}/tasks/${task}/logs`;

  async function sameAsMissing(c: Client, tool: string, args: Record<string, unknown>): Promise<void> {
    const real = await callTool(c, tool, { ...args, remote_session_id: rs });
    const missing = await callTool(c, tool, { ...args, remote_session_id: ghost() });
    assert.equal(real.isError, true, `${tool} must fail`);
    assert.deepEqual(err(real.env), err(missing.env), `${tool}: another principal's session looks exactly like a missing one`);
    assert.equal(real.env.error!.code, 'SESSION_NOT_FOUND');
  }

  async function resourceError(c: Client, uri: string): Promise<string> {
    try {
      await c.readResource({ uri });
    } catch (e) {
      return `${(e as { code?: number }).code} ${(e as Error).message.replaceAll(rs, 'RS').replaceAll(ghost(), 'RS')}`;
    }
    return 'read';
  }

  it('without a role, B sees nothing of A’s session: every tool, the task log and observe say not found', async () => {
    await sameAsMissing(bob, 'session', { action: 'open' });
    for (const view of ['session', 'history']) await sameAsMissing(bob, 'observe', { view });
    await sameAsMissing(bob, 'observe', { view: 'task', execution_task_id: task });
    await sameAsMissing(bob, 'observe', { view: 'logs', execution_task_id: task });
    await sameAsMissing(bob, 'execute', { command: 'id' });
    await sameAsMissing(bob, 'read', { view: 'list', path: '.' });
    await sameAsMissing(bob, 'session', { action: 'grant', principal: 'bob', role: 'editor' });
    const real = await resourceError(bob, logUri(rs));
    assert.notEqual(real, 'read');
    assert.equal(real, await resourceError(bob, logUri(ghost())));
    assert.ok(!(await bob.listResources()).resources.some((r) => r.uri === logUri(rs)));
  });

  it('a viewer observes and reads but cannot execute, edit or close', async () => {
    const g = await callTool(alice, 'session', { action: 'grant', remote_session_id: rs, principal: 'bob', role: 'viewer' });
    assert.equal(g.isError, false, JSON.stringify(g.env.error));
    assert.deepEqual(g.env.data!.roles, [{ principal: 'bob', role: 'viewer' }]);
    const resumed = await callTool(bob, 'session', { action: 'open', remote_session_id: rs });
    assert.equal(resumed.env.data!.role, 'viewer');
    assert.equal((await callTool(bob, 'observe', { view: 'session', remote_session_id: rs })).isError, false);
    assert.equal((await callTool(bob, 'read', { view: 'list', path: '.', remote_session_id: rs })).isError, false);
    const log = await bob.readResource({ uri: logUri(rs) });
    assert.match(String((log.contents[0] as { text: string }).text), /hello-from-alice/);
    assert.ok((await bob.listResources()).resources.some((r) => r.uri === logUri(rs)), 'listed once B holds a role');
    for (const [tool, args] of [
      ['execute', { command: 'true' }],
      ['edit', { edits: [{ operation: 'create', path: 'x.txt', content: 'x' }] }],
      ['session', { action: 'close' }],
      ['session', { action: 'grant', principal: 'carol', role: 'viewer' }],
    ] as const) {
      const r = await callTool(bob, tool, { ...args, remote_session_id: rs });
      assert.equal(r.env.error?.code, 'ROLE_REQUIRED', `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r.env.error)}`);
    }
  });

  it('an approver confirms A’s pending git push (and move) and it runs once; an editor may not', async () => {
    const command = 'git push --dry-run 2>/dev/null; echo pushed >> .pushes';
    const asked = await callTool(alice, 'execute', { remote_session_id: rs, command });
    assert.equal(asked.env.status, 'waiting_confirmation', JSON.stringify(asked.env));
    const confirm = asked.env.actions.find((x) => x.arguments.user_confirmed === true)!;
    await callTool(alice, 'session', { action: 'grant', remote_session_id: rs, principal: 'bob', role: 'editor' });
    assert.equal((await run(bob, rs, 'true')).exitCode, 0, 'an editor executes');
    const byEditor = await callTool(bob, 'execute', confirm.arguments);
    assert.equal(byEditor.env.error?.code, 'ROLE_REQUIRED', JSON.stringify(byEditor.env));
    // Likewise a move A prepared: an editor may not submit it.
    writeFileSync(join(h.workspace, 'old.log'), 'x');
    const move = await callTool(alice, 'move_out', { action: 'prepare', remote_session_id: rs, purpose: 'tidy', targets: [{ path: 'old.log', kind: 'file' }] });
    const submit = move.env.actions.find((x) => x.arguments.action === 'submit')!.arguments;
    assert.equal((await callTool(bob, 'move_out', submit)).env.error?.code, 'ROLE_REQUIRED');
    await callTool(alice, 'session', { action: 'grant', remote_session_id: rs, principal: 'bob', role: 'approver' });
    const moved = await callTool(bob, 'move_out', submit);
    assert.equal(moved.env.status, 'succeeded', JSON.stringify(moved.env.error));
    const byApprover = await callTool(bob, 'execute', confirm.arguments);
    assert.equal(byApprover.env.status, 'succeeded', JSON.stringify(byApprover.env));
    // A repeats her own confirmation: the same task, not a second run.
    const again = await callTool(alice, 'execute', confirm.arguments);
    assert.equal(again.env.context.execution_task_id, byApprover.env.context.execution_task_id);
    assert.equal(again.env.hints.idempotent_replay, true);
    assert.equal(readFileSync(join(h.workspace, '.pushes'), 'utf8'), 'pushed\n');
    const audit = readFileSync(h.layout.auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(audit.some((e) => e.event === 'execute.run' && e.principal === 'bob' && e.requested_by === 'alice' && e.confirmed === true));
  });

  it('after handoff B owns the session and A has no role left', async () => {
    const r = await callTool(alice, 'session', { action: 'handoff', remote_session_id: rs, principal: 'bob' });
    assert.equal(r.isError, false, JSON.stringify(r.env.error));
    assert.equal(r.env.data!.owner, 'bob');
    assert.deepEqual(r.env.data!.roles, []);
    await sameAsMissing(alice, 'session', { action: 'open' });
    await sameAsMissing(alice, 'observe', { view: 'session' });
    assert.equal(await resourceError(alice, logUri(rs)), await resourceError(alice, logUri(ghost())));
    const mine = await callTool(bob, 'session', { action: 'open', workspace: 'ws' });
    assert.equal(mine.env.data!.remote_session_id, rs, 'the workspace affinity moved with the session');
    assert.equal(mine.env.data!.role, 'owner');
  });
});
