import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { TestHome } from './_harness/home.js';
import { callTool, httpClient, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';
import { toolCaller } from './_harness/tools.js';

const TOOLS = ['workspace', 'session', 'execute', 'observe', 'read', 'edit'];
const STRICT_TOKEN = 'strict-token-' + 's'.repeat(32);

describe('a principal required to be sandboxed where neither mode works cannot open a session (issue 17)', () => {
  // "Neither mode works", simulated: bwrap and the Landlock helper point at missing programs.
  const h = new TestHome({
    security: {
      sandbox: {
        mode: 'off',
        bwrap_path: '/nonexistent/bwrap',
        landlock_helper: '/nonexistent/holdfast-landlock',
        principals: { 'oauth:*': { mode: 'auto' } },
      },
    },
  });
  let a: AdapterProcess;
  let mcp: Client;
  before(async () => {
    await h.startDaemon();
    writeFileSync(join(h.home, 'strict.token'), STRICT_TOKEN + '\n', { mode: 0o600 });
    writeFileSync(
      join(h.home, 'principals.yaml'),
      ['principals:', '  - name: strict', '    token_file: strict.token', '    tool_profile: coding', '    sandbox: { mode: auto, network: off }', ''].join('\n'),
    );
    a = await startAdapter(h, ['--principal-config', join(h.home, 'principals.yaml')]);
    mcp = await httpClient(a.url, STRICT_TOKEN, 'legacy');
  });
  after(async () => {
    await mcp.close().catch(() => undefined);
    await a.kill9();
    await h.cleanup();
  });

  const guardians = () => h.processes().filter((p) => p.cmd.includes('guardian'));

  it('an `oauth:*` principal (config.yaml security.sandbox.principals) gets SANDBOX_UNAVAILABLE and no session exists', async () => {
    const before = guardians().length;
    const r = await toolCaller(h.client(), 'oauth:client-1', TOOLS)('session', { action: 'open', workspace: 'ws' });
    assert.equal(r.env.status, 'failed');
    assert.equal(r.env.error!.code, 'SANDBOX_UNAVAILABLE', r.text);
    assert.match(r.env.error!.message, /must run sandboxed \(mode auto, network on, from security\.sandbox\.principals\["oauth:\*"\]\)/);
    assert.match(r.env.error!.message, /bwrap not found \(\/nonexistent\/bwrap\)/);
    assert.match(r.env.error!.message, /Landlock helper \/nonexistent\/holdfast-landlock is missing/);
    assert.match(r.env.error!.message, /the session was not opened/);
    const { sessions } = await h.client().call('session.list', { all: true });
    assert.equal(sessions.filter((s) => s.principal === 'oauth:client-1').length, 0);
    assert.equal(guardians().length, before, 'no guardian was started');
  });

  it('a principals-file principal with `sandbox: {mode: auto}` is refused through the real adapter', async () => {
    const r = await callTool(mcp, 'session', { action: 'open', workspace: 'ws' });
    assert.equal(r.isError, true);
    assert.equal(r.env.error!.code, 'SANDBOX_UNAVAILABLE', r.text);
    assert.match(r.env.error!.message, /mode auto, network off, from principal "strict"/);
  });

  it('principals without a requirement open unsandboxed sessions; a live one is not handed to a stricter caller', async () => {
    const c = h.client();
    const plain = toolCaller(c, 'p', TOOLS);
    const open = await plain('session', { action: 'open', workspace: 'ws' });
    assert.equal(open.env.status, 'succeeded', open.text);
    assert.deepEqual(open.env.data.sandbox, { mode: 'off', network: 'on' });
    const rs = open.env.data.remote_session_id as string;
    // The same principal, now carrying a requirement in its call context (e.g. a changed principals file).
    const strict = await c.call('tool.call', { tool: 'session', arguments: { action: 'open', workspace: 'ws' }, context: { principal: 'p', allowed_tools: TOOLS, sandbox: { mode: 'landlock' } } });
    const env = strict.structuredContent as { status: string; error: { code: string; message: string } };
    assert.equal(env.status, 'failed');
    assert.equal(env.error.code, 'POLICY_DENIED');
    assert.match(env.error.message, new RegExp(`live session ${rs} cannot be used: it runs without a sandbox, but principal "p" requires mode landlock`));
    assert.match(env.error.message, /session\(action="close"/);
  });

  it('holdfast doctor reports the mode and why neither mechanism works', async () => {
    const r = await h.cli(['doctor', '--json']);
    const checks = JSON.parse(r.stdout) as { checks: { name: string; ok: boolean; detail: string; data?: Record<string, unknown> }[] };
    const sb = checks.checks.find((x) => x.name === 'sandbox');
    assert.ok(sb, r.stdout);
    assert.equal(sb.ok, true, 'mode off needs no mechanism');
    assert.equal(sb.data!.auto, 'none');
    assert.match(sb.detail, /bwrap not found/);
    assert.deepEqual(sb.data!.principals, ['oauth:*']);
  });
});

describe('the file tools keep to the sandbox: holdfast\'s home inside a workspace (issue 17)', () => {
  const outer = mkdtempSync('/tmp/hf-outer-');
  const h = new TestHome({ security: { sandbox: { mode: 'bwrap' } } }, { homeParent: outer, userHomeParent: '/var/tmp' });
  const homeRel = basename(h.home);
  let call: ReturnType<typeof toolCaller>;
  let rs: string;
  let sh: (command: string) => Promise<{ code: number; out: string }>;

  before(async () => {
    writeFileSync(join(outer, '.holdfast.yaml'), 'limits: {}\n');
    await h.startDaemon();
    const reg = await h.cli(['workspace', 'register', outer, '--name', 'outer']);
    assert.equal(reg.code, 0, reg.stderr);
    call = toolCaller(h.client(), 'p', TOOLS);
    const open = await call('session', { action: 'open', workspace: 'outer' });
    assert.equal(open.env.status, 'succeeded', open.text);
    rs = open.env.data.remote_session_id as string;
    sh = async (command) => {
      const r = await call('execute', { remote_session_id: rs, command, yield_time_ms: 30_000 });
      return { code: r.env.data?.exit_code as number, out: (r.env.data?.output as string) ?? r.text };
    };
  });
  after(async () => {
    await h.cleanup();
    rmSync(outer, { recursive: true, force: true });
  });

  it('the shell cannot see holdfast\'s config and token; read and edit refuse them too', async () => {
    const cat = await sh(`cat ${homeRel}/config.yaml`);
    assert.notEqual(cat.code, 0);
    assert.match(cat.out, /No such file or directory/);
    const read = await call('read', { remote_session_id: rs, path: `${homeRel}/config.yaml` });
    assert.equal(read.env.error?.code, 'POLICY_DENIED', read.text);
    assert.match(read.env.error!.message, /sandbox hides/);
    const edit = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: `${homeRel}/evil.txt`, content: 'x' }] });
    assert.equal(edit.env.error?.code, 'POLICY_DENIED', edit.text);
    const list = await call('read', { remote_session_id: rs, view: 'list', query: 'config.yaml' });
    assert.deepEqual(list.env.data.files, [], 'walks skip the hidden folder');
    assert.ok(readFileSync(h.layout.config, 'utf8').length > 0, 'the file itself is untouched');
  });

  it('both may write the rest of the workspace; neither may change the project config', async () => {
    const w = await sh('echo from-shell > note.txt && cat note.txt');
    assert.equal(w.out, 'from-shell');
    const e = await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'note2.txt', content: 'from-edit\n' }] });
    assert.equal(e.env.status, 'succeeded', e.text);
    // The command policy asks first (holdfast's config); confirmed, the sandbox still refuses.
    const asked = await call('execute', { remote_session_id: rs, command: 'echo "limits: {read_window_bytes: 2048}" >> .holdfast.yaml', yield_time_ms: 30_000 });
    assert.equal(asked.env.status, 'waiting_confirmation', asked.text);
    const confirm = asked.env.actions.find((x) => x.arguments.user_confirmed === true);
    assert.ok(confirm, JSON.stringify(asked.env.actions));
    const p = await call('execute', confirm.arguments);
    assert.notEqual(p.env.data.exit_code, 0);
    assert.match(p.env.data.output, /Read-only file system/);
    assert.equal(readFileSync(join(outer, '.holdfast.yaml'), 'utf8'), 'limits: {}\n');
  });
});
