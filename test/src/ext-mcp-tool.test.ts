import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAlive, pollUntil, processesWithEnv, TestHome } from './_harness/home.js';
import { httpClient, openSession as openMcpSession, ownerToken, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';
import { envelopeOf, openSession, toolCaller, type ToolReply } from './_harness/tools.js';

/**
 * `mcp_tool` (issue 13) against real upstream servers from npm — server-everything,
 * server-filesystem — and the small SDK server of _harness/upstream-test-server.ts, hosted by the
 * session's guardian: discovery, read-only calls at once, confirmation of the others (once, never
 * with other arguments), schema revisions, crash and restart, workspace approval, an HTTP upstream
 * with `${VAR}` expansion, doctor, progress and cancellation through a real MCP client, and no
 * upstream process left after `holdfast kill`.
 */
const require = createRequire(import.meta.url);
const pkgEntry = (name: string, rel: string): string => join(dirname(require.resolve(`${name}/package.json`)), rel);
const EVERYTHING = pkgEntry('@modelcontextprotocol/server-everything', 'dist/index.js');
const FILESYSTEM = pkgEntry('@modelcontextprotocol/server-filesystem', 'dist/index.js');
const TEST_SERVER = join(dirname(fileURLToPath(import.meta.url)), '_harness', 'upstream-test-server.js');
const TOOLS = ['workspace', 'session', 'execute', 'mcp_tool', 'skill_tool'];
const SECRET = 'arg-secret-7f3a9c';

/** Starts the test server in HTTP mode; resolves with the child and its URL. */
function startHttpUpstream(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [TEST_SERVER, '--http'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`the HTTP test server exited (${code})`)));
  });
}

describe('mcp_tool with real upstream MCP servers (issue 13)', () => {
  let h: TestHome;
  let web: { child: ChildProcess; url: string };
  let call: ReturnType<typeof toolCaller>;
  let rs: string;
  let mcp: (args: Record<string, unknown>) => Promise<ToolReply>;
  let notes: string;
  let cancelFile: string;

  before(async () => {
    web = await startHttpUpstream({ EXPECT_AUTH: 'Bearer web-token-1' });
    h = new TestHome({
      mcp_servers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], description: 'the MCP reference test server' },
        testsrv: { command: process.execPath, args: [TEST_SERVER], env: { NOTES_FILE: '${HF_NOTES}', CANCEL_FILE: '${HF_CANCEL}' } },
        fs: { command: process.execPath, args: [FILESYSTEM, '.'] },
        web: { type: 'http', url: '${HF_WEB_URL}', headers: { Authorization: 'Bearer ${HF_WEB_TOKEN}' } },
      },
    });
    notes = join(h.home, 'notes.txt');
    cancelFile = join(h.home, 'cancel.txt');
    mkdirSync(join(h.home, 'skills', 'hello'), { recursive: true });
    writeFileSync(join(h.home, 'skills', 'hello', 'SKILL.md'), '---\nname: hello\ndescription: Say hello\n---\nSay hello.\n');
    await h.startDaemon({ HF_NOTES: notes, HF_CANCEL: cancelFile, HF_WEB_URL: web.url, HF_WEB_TOKEN: 'web-token-1' });
    const client = h.client();
    call = toolCaller(client, 'p', TOOLS);
    rs = await openSession(client);
    mcp = (args) => call('mcp_tool', { remote_session_id: rs, ...args });
  });
  after(async () => {
    web?.child.kill('SIGKILL');
    await h?.cleanup();
  });

  it('session(open) returns a compact extension_inventory: server names and states, no schemas', async () => {
    const r = await call('session', { action: 'open', remote_session_id: rs });
    const inv = r.env.data.extension_inventory;
    assert.deepEqual(inv.mcp_servers.map((s: { name: string }) => s.name), ['everything', 'testsrv', 'fs', 'web']);
    assert.equal(inv.mcp_servers[0].state, 'not_started');
    assert.deepEqual(inv.skills, [{ name: 'hello', description: 'Say hello', kind: 'document' }]);
    assert.ok(!JSON.stringify(inv).includes('inputSchema') && !JSON.stringify(inv).includes('properties'), 'no schemas in the inventory');
  });

  it('list → list(server) → describe → call of server-everything echo (read-only annotated) runs at once; the result passes through', async () => {
    const servers = await mcp({ action: 'list' });
    assert.equal(servers.isError, false);
    assert.equal(servers.raw.structuredContent, undefined, 'the envelope is in _meta, structuredContent is only ever the upstream’s');
    assert.deepEqual(servers.env.data.servers.find((s: { name: string }) => s.name === 'everything'), { name: 'everything', source: 'config', description: 'the MCP reference test server', state: 'not_started' });

    const tools = await mcp({ action: 'list', server: 'everything' });
    assert.equal(tools.isError, false, tools.text);
    const echo = tools.env.data.tools.find((t: { name: string }) => t.name === 'echo');
    assert.deepEqual(echo, { name: 'echo', description: 'Echoes back the input string' });

    const d = await mcp({ action: 'describe', server: 'everything', tool: 'echo' });
    assert.equal(d.env.status, 'succeeded', d.text);
    assert.deepEqual(d.env.data.input_schema.required, ['message']);
    assert.equal(d.env.data.annotations.readOnlyHint, true);
    assert.match(d.env.data.revision, /^[0-9a-f]{16}$/);
    assert.equal(d.env.data.needs_confirmation, false);

    const r = await mcp({ action: 'call', server: 'everything', tool: 'echo', arguments: { message: 'hello upstream' } });
    assert.deepEqual(r.raw.content, [{ type: 'text', text: 'Echo: hello upstream' }], 'content unchanged');
    assert.equal(r.raw.isError, false);
    assert.equal(r.raw.structuredContent, undefined, 'echo sends no structuredContent, and none is added');
    const env = envelopeOf(r.raw);
    assert.equal(env.status, 'succeeded');
    assert.equal(env.data.revision, d.env.data.revision);
    assert.ok(isAlive(env.data.upstream_pid), 'the upstream runs as its own process');
    assert.equal(env.data.protocol_version, '2025-11-25', 'stdio upstreams use the 2025 handshake by default');
    const stat = readFileSync(`/proc/${env.data.upstream_pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    assert.equal(Number(fields[2]), env.data.upstream_pid, 'it leads its own process group');
    const stderrDir = join(h.layout.sessionsDir, rs, 'mcp', 'everything', 'stderr');
    await pollUntil('its stderr in the session folder', () => readdirSync(stderrDir).some((f) => readFileSync(join(stderrDir, f), 'utf8').includes('Starting default (STDIO) server')));

    const structured = await mcp({ action: 'call', server: 'everything', tool: 'get-structured-content', arguments: { location: 'New York' } });
    assert.equal(typeof structured.raw.structuredContent?.temperature, 'number', 'structuredContent passes through');
  });

  it('a tool without annotations waits for confirmation; the confirmed repeat runs it once; replays with other arguments are refused', async () => {
    const first = await mcp({ action: 'call', server: 'testsrv', tool: 'note', arguments: { text: SECRET } });
    assert.equal(first.env.status, 'waiting_confirmation', first.text);
    assert.equal(first.env.hints.preferred_behavior, 'ask_confirm');
    assert.ok(!JSON.stringify(first.raw).includes(SECRET), 'neither the actions nor the summary echo the arguments');
    assert.equal(first.env.actions[0]!.arguments.user_confirmed, true);
    assert.equal(first.env.actions[0]!.arguments.arguments, undefined);
    assert.equal(existsSync(notes), false, 'nothing ran yet');

    const other = await mcp({ action: 'call', server: 'testsrv', tool: 'note', arguments: { text: 'something else' }, user_confirmed: true });
    assert.equal(other.env.error?.code, 'CONFIRMATION_NOT_FOUND', other.text);
    const otherPurpose = await mcp({ action: 'call', server: 'testsrv', tool: 'note', arguments: { text: SECRET }, purpose: 'another reason', user_confirmed: true });
    assert.equal(otherPurpose.env.error?.code, 'CONFIRMATION_NOT_FOUND', 'bound to the purpose too');
    assert.equal(existsSync(notes), false, 'a refused replay runs nothing');

    const confirmed = await mcp({ action: 'call', server: 'testsrv', tool: 'note', arguments: { text: SECRET }, user_confirmed: true });
    assert.equal(confirmed.raw.isError, false, confirmed.text);
    assert.deepEqual(confirmed.raw.structuredContent, { lines: 1 });
    const again = await mcp({ action: 'call', server: 'testsrv', tool: 'note', arguments: { text: SECRET }, user_confirmed: true });
    assert.equal(again.env.error?.code, 'CONFIRMATION_NOT_FOUND', 'a confirmation is used once');
    assert.equal(readFileSync(notes, 'utf8'), `${SECRET}\n`, 'the tool ran exactly once');

    const audit = readFileSync(h.layout.auditLog, 'utf8');
    assert.match(audit, /"event":"mcp.call"/);
    assert.ok(!audit.includes(SECRET), 'the audit log keeps the argument digest, never the values');
  });

  it('server-filesystem: a read runs at once, a write needs the user’s confirmation', async () => {
    writeFileSync(join(h.workspace, 'a.txt'), 'alpha\n');
    const read = await mcp({ action: 'call', server: 'fs', tool: 'read_text_file', arguments: { path: join(h.workspace, 'a.txt') } });
    assert.equal(read.raw.isError, false, read.text);
    assert.match(read.text, /alpha/);
    const write = { action: 'call', server: 'fs', tool: 'write_file', arguments: { path: join(h.workspace, 'b.txt'), content: 'beta' } };
    const asked = await mcp(write);
    assert.equal(asked.env.status, 'waiting_confirmation');
    assert.match(asked.env.data.confirmation.summary, /annotated destructive/);
    assert.equal(existsSync(join(h.workspace, 'b.txt')), false);
    const done = await mcp({ ...write, user_confirmed: true });
    assert.equal(done.raw.isError, false, done.text);
    assert.equal(readFileSync(join(h.workspace, 'b.txt'), 'utf8'), 'beta');
  });

  it('a tool whose schema changed between describe and call → SCHEMA_REVISION_CHANGED; arguments are checked against the current schema', async () => {
    const d1 = await mcp({ action: 'describe', server: 'testsrv', tool: 'evolving' });
    assert.equal(d1.env.data.input_schema.properties.value.type, 'string');
    const ok = await mcp({ action: 'call', server: 'testsrv', tool: 'evolving', arguments: { value: 'x' } });
    assert.equal(ok.raw.isError, false, ok.text);
    const bad = await mcp({ action: 'call', server: 'testsrv', tool: 'evolving', arguments: { value: 3 } });
    assert.equal(bad.env.error?.code, 'BAD_REQUEST', bad.text);
    assert.match(bad.env.error!.message, /value/);

    const m = await mcp({ action: 'call', server: 'testsrv', tool: 'mutate', arguments: {} });
    assert.equal(m.raw.isError, false, m.text);
    const changed = await mcp({ action: 'call', server: 'testsrv', tool: 'evolving', arguments: { value: 'x' } });
    assert.equal(changed.env.error?.code, 'SCHEMA_REVISION_CHANGED', changed.text);
    assert.deepEqual(changed.env.actions[0]!.arguments, { action: 'describe', remote_session_id: rs, server: 'testsrv', tool: 'evolving' });

    const d2 = await mcp({ action: 'describe', server: 'testsrv', tool: 'evolving' });
    assert.notEqual(d2.env.data.revision, d1.env.data.revision);
    const now = await mcp({ action: 'call', server: 'testsrv', tool: 'evolving', arguments: { value: 3, unit: 'kg' } });
    assert.equal(now.raw.isError, false, now.text);
  });

  it('an upstream killed by hand: the next call gets UPSTREAM_EXITED with its stderr tail, the one after starts it again', async () => {
    const before = await mcp({ action: 'call', server: 'everything', tool: 'echo', arguments: { message: 'a' } });
    const pid = envelopeOf(before.raw).data.upstream_pid as number;
    process.kill(pid, 'SIGKILL');
    await pollUntil('the upstream to die', () => !isAlive(pid));
    const listed = await pollUntil('the guardian to see the exit', async () => {
      const l = await mcp({ action: 'list' });
      const s = l.env.data.servers.find((x: { name: string }) => x.name === 'everything');
      return s.state === 'exited' ? s : null;
    });
    assert.equal(listed.pid, undefined);

    const crashed = await mcp({ action: 'call', server: 'everything', tool: 'echo', arguments: { message: 'b' } });
    assert.equal(crashed.env.error?.code, 'UPSTREAM_EXITED', crashed.text);
    assert.match(crashed.env.error!.message, /SIGKILL/);
    assert.match(crashed.env.error!.message, /Starting default \(STDIO\) server/, 'the last stderr lines are quoted');
    assert.equal((crashed.env.hints.details as { pid: number }).pid, pid);

    const back = await mcp({ action: 'call', server: 'everything', tool: 'echo', arguments: { message: 'c' } });
    assert.deepEqual(back.raw.content, [{ type: 'text', text: 'Echo: c' }], back.text);
    const newPid = envelopeOf(back.raw).data.upstream_pid as number;
    assert.notEqual(newPid, pid);
    assert.ok(isAlive(newPid));
  });

  it('a workspace .mcp.json server is needs_approval until `holdfast mcp approve`, and again after its entry changes; config wins on a name clash', async () => {
    const entry = (greeting: string) => ({ command: process.execPath, args: [TEST_SERVER], env: { GREETING: greeting } });
    const write = (greeting: string): void =>
      writeFileSync(join(h.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: entry(greeting), everything: { command: '/bin/false' } } }, null, 2));
    write('${HF_UNSET_GREETING:-hello-default}');
    const state = async (name: string): Promise<{ state: string; source: string; problem?: string }> =>
      (await mcp({ action: 'list' })).env.data.servers.find((s: { name: string }) => s.name === name);
    assert.equal((await state('repo')).state, 'needs_approval');
    assert.match((await state('repo')).problem!, /holdfast mcp approve ws repo/);
    assert.equal((await state('everything')).source, 'config', 'config.yaml wins over the workspace');
    const refused = await mcp({ action: 'call', server: 'repo', tool: 'get_env', arguments: { name: 'GREETING' } });
    assert.equal(refused.env.error?.code, 'NEEDS_APPROVAL', refused.text);
    assert.equal(processesWithEnv('GREETING=hello-default').length, 0, 'it was never started');

    const approve = await h.cli(['mcp', 'approve', 'ws', 'repo']);
    assert.equal(approve.code, 0, approve.stderr);
    assert.match(approve.stdout, /approved: ws repo/);
    assert.equal((await state('repo')).state, 'not_started');
    const r = await mcp({ action: 'call', server: 'repo', tool: 'get_env', arguments: { name: 'GREETING' } });
    assert.equal(r.raw.isError, false, r.text);
    assert.equal(r.raw.structuredContent?.value, 'hello-default', '${VAR:-default} was expanded');
    const firstPid = r.raw.structuredContent?.pid as number;

    write('changed');
    assert.equal((await state('repo')).state, 'needs_approval', 'a changed entry needs approval again');
    assert.match((await state('repo')).problem!, /changed since it was approved/);
    assert.equal((await mcp({ action: 'call', server: 'repo', tool: 'get_env', arguments: { name: 'GREETING' } })).env.error?.code, 'NEEDS_APPROVAL');
    assert.equal((await h.cli(['mcp', 'approve', 'ws', 'repo'])).code, 0);
    const again = await mcp({ action: 'call', server: 'repo', tool: 'get_env', arguments: { name: 'GREETING' } });
    assert.equal(again.raw.structuredContent?.value, 'changed');
    assert.notEqual(again.raw.structuredContent?.pid, firstPid, 'the changed entry runs as a new process');
    await pollUntil('the old instance to be stopped', () => !isAlive(firstPid));

    const missing = await h.cli(['mcp', 'approve', 'ws', 'nope']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /defines no server "nope"/);
  });

  it('approving a workspace server binds the script it runs: editing the script requires approval again', async () => {
    const file = join(h.workspace, '.mcp.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> };
    writeFileSync(join(h.workspace, 'srv.mjs'), `import ${JSON.stringify(TEST_SERVER)};\n// v1\n`);
    doc.mcpServers.script = { command: process.execPath, args: ['srv.mjs'] };
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const state = async (): Promise<{ state: string; problem?: string }> => (await mcp({ action: 'list' })).env.data.servers.find((s: { name: string }) => s.name === 'script');
    assert.equal((await state()).state, 'needs_approval');
    assert.equal((await h.cli(['mcp', 'approve', 'ws', 'script'])).code, 0);
    assert.equal((await state()).state, 'not_started');
    const ok = await mcp({ action: 'call', server: 'script', tool: 'get_env', arguments: { name: 'HOME' } });
    assert.equal(ok.raw.isError, false, ok.text);

    // The entry is unchanged; only the bytes of the script it runs differ.
    writeFileSync(join(h.workspace, 'srv.mjs'), `import ${JSON.stringify(TEST_SERVER)};\n// v2: something else now\n`);
    const after = await state();
    assert.equal(after.state, 'needs_approval', 'a changed script needs approval again');
    assert.match(after.problem!, /changed since it was approved/);
    assert.equal((await mcp({ action: 'call', server: 'script', tool: 'get_env', arguments: { name: 'HOME' } })).env.error?.code, 'NEEDS_APPROVAL');
    assert.equal((await h.cli(['mcp', 'approve', 'ws', 'script'])).code, 0);
    assert.notEqual((await state()).state, 'needs_approval');
    const again = await mcp({ action: 'call', server: 'script', tool: 'get_env', arguments: { name: 'HOME' } });
    assert.equal(again.raw.isError, false, again.text);
    assert.notEqual(again.raw.structuredContent?.pid, ok.raw.structuredContent?.pid, 'the re-approved script runs as a new process');
  });

  it('an HTTP upstream is connected from the guardian (2026-07-28 era) with ${VAR} expanded in url and headers', async () => {
    const r = await mcp({ action: 'call', server: 'web', tool: 'get_env', arguments: { name: 'EXPECT_AUTH' } });
    assert.equal(r.raw.isError, false, r.text);
    assert.equal(r.raw.structuredContent?.value, 'Bearer web-token-1');
    assert.equal(envelopeOf(r.raw).data.upstream_pid, null, 'no process of ours');
    assert.equal(envelopeOf(r.raw).data.protocol_version, '2026-07-28', 'HTTP upstreams negotiate the era (auto): this one is modern');
  });

  it('holdfast doctor lists the servers and skills with their state', async () => {
    const d = await h.cli(['doctor', '--json']);
    const checks = (JSON.parse(d.stdout) as { checks: { name: string; ok: boolean; data?: Record<string, unknown> }[] }).checks;
    const ext = checks.find((c) => c.name === 'extensions ws');
    assert.ok(ext, d.stdout);
    const servers = ext.data!.mcp_servers as { name: string; state: string; source: string; running_pids?: number[] }[];
    assert.ok(servers.find((s) => s.name === 'everything')!.running_pids!.length === 1);
    assert.equal(servers.find((s) => s.name === 'repo')!.source, 'workspace');
    assert.deepEqual(ext.data!.skills, [{ name: 'hello', kind: 'document', source: 'home' }]);
  });

  describe('through the adapter with a real MCP client', () => {
    let a: AdapterProcess;
    before(async () => {
      a = await startAdapter(h, ['--tool-profile', 'full']);
    });
    after(async () => {
      await a?.kill9();
    });

    it('forwards upstream progress to the client and the client’s cancellation to the upstream', async () => {
      const client = await httpClient(a.url, ownerToken(h), 'legacy');
      try {
        // The adapter's owner principal has a session of its own (sessions belong to principals).
        const { id: rs } = await openMcpSession(client, { workspace: 'ws' });
        const progress: { progress: number; total?: number; message?: string }[] = [];
        const r = (await client.callTool(
          { name: 'mcp_tool', arguments: { action: 'call', remote_session_id: rs, server: 'testsrv', tool: 'count_progress', arguments: { steps: 4 } } },
          { onprogress: (p) => progress.push(p) },
        )) as { content: { type: string; text?: string }[]; _meta?: Record<string, unknown> };
        assert.deepEqual(r.content, [{ type: 'text', text: 'counted 4' }]);
        assert.equal(envelopeOf(r).status, 'succeeded');
        assert.deepEqual(progress.map((p) => p.progress), [1, 2, 3, 4]);
        assert.equal(progress[3]!.total, 4);
        assert.equal(progress[3]!.message, 'step 4');

        const ac = new AbortController();
        const pending = client.callTool({ name: 'mcp_tool', arguments: { action: 'call', remote_session_id: rs, server: 'testsrv', tool: 'wait_cancel', arguments: {} } }, { signal: ac.signal });
        pending.catch(() => undefined);
        await pollUntil('the upstream tool to start', () => existsSync(cancelFile) && readFileSync(cancelFile, 'utf8') === 'started');
        ac.abort();
        await assert.rejects(pending);
        await pollUntil('the upstream to see the cancellation', () => readFileSync(cancelFile, 'utf8') === 'cancelled');
      } finally {
        await client.close();
      }
    });
  });

  it('holdfast kill of the session leaves no upstream process', async () => {
    const l = await mcp({ action: 'list' });
    const pids = (l.env.data.servers as { pid?: number }[]).map((s) => s.pid).filter((p): p is number => typeof p === 'number');
    assert.ok(pids.length >= 3, `several upstreams run (${JSON.stringify(l.env.data.servers)})`);
    const k = await h.cli(['kill', rs]);
    assert.equal(k.code, 0, k.stderr);
    await pollUntil('every upstream process to be gone', () => pids.every((p) => !isAlive(p)));
    assert.deepEqual(processesWithEnv(`HOLDFAST_SESSION=${rs}`), []);
  });
});
