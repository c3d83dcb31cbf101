import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { guardianPaths } from '@holdfast/shared/paths';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI_MAIN, pollUntil, TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, rawRequest, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

const MARK = '[secret:API_KEY]';

/** Every regular file under `dir` whose bytes contain `needle` (`grep -rlF`, devices, FIFOs and sockets skipped). */
function filesContaining(dir: string, needle: string): string[] {
  const r = spawnSync('grep', ['-rlF', '-D', 'skip', '--', needle, dir], { encoding: 'utf8' });
  if (r.status === 2) throw new Error(`grep failed: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l.length > 0);
}

/** The bytes of every segment of a log folder, concatenated. */
function logText(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
}

/**
 * Secrets in the guardian's memory (issue 12): a value typed into `holdfast secret provide` (driven
 * in tmux, hidden input) is used by `execute(secrets=[…])`; the result, the PTY log, a task's log
 * files and its log resource, the observe stream and the audit show `[secret:API_KEY]`, also when
 * the value is printed one character every 100 ms; no file under HOLDFAST_HOME contains the value.
 * It survives `restart-daemon` and ends with the session. A client with URL-mode elicitation gets
 * the loopback page instead: cookie and CSRF checked, the URL works once.
 */
describe('secrets (issue 12)', () => {
  const h = new TestHome();
  const value = `hf-${randomBytes(6).toString('hex')}`;
  let adapter: AdapterProcess;
  let client: Client;
  let rs = '';
  let observer: ChildProcess | null = null;
  let observed = '';
  const run = async (command: string, extra: Record<string, unknown> = {}) => {
    const r = await callTool(client, 'execute', { remote_session_id: rs, command, secrets: ['API_KEY'], yield_time_ms: 30_000, ...extra });
    return r;
  };

  before(async () => {
    await h.startDaemon();
    adapter = await startAdapter(h);
    client = await httpClient(adapter.url, ownerToken(h), 'legacy');
    rs = (await openSession(client, { workspace: 'ws' })).id;
    observer = spawn(process.execPath, [CLI_MAIN, 'observe', 'ws', '--format', 'json', '--detail'], { env: h.env(), stdio: ['ignore', 'pipe', 'ignore'] });
    observer.stdout!.on('data', (d: Buffer) => (observed += d.toString()));
  });
  after(async () => {
    observer?.kill('SIGKILL');
    await h.tmux(['kill-server']).catch(() => undefined);
    await client?.close().catch(() => undefined);
    await adapter?.stop();
    await h.cleanup();
  });

  it('without URL elicitation the request is waiting_user with the command to run; the command refuses to read a non-terminal', async () => {
    const r = await callTool(client, 'secret_provide', { action: 'request', remote_session_id: rs, name: 'API_KEY', purpose: 'call the staging API' });
    assert.equal(r.env.status, 'waiting_user', r.text);
    assert.equal((r.env.data as { command: string }).command, `holdfast secret provide ${rs} API_KEY`);
    assert.doesNotMatch(r.text, /http:\/\//);
    const piped = await h.cli(['secret', 'provide', rs, 'API_KEY'], { input: `${value}\n` });
    assert.equal(piped.code, 2, piped.stderr);
    assert.match(piped.stderr, /terminal/);
    const missing = await run('printenv API_KEY');
    assert.equal(missing.env.error?.code, 'SECRET_NOT_FOUND', missing.text);
    const both = await run('true', { env: { API_KEY: 'x' } });
    assert.equal(both.env.error?.code, 'BAD_REQUEST');
    // A secret may not set a variable that makes programs run other code without the confirmation an env entry needs.
    await h.client().call('secret.provide', { id: rs, name: 'BASH_ENV', value: 'not-a-file-0000' }, { retry: 'never' });
    const risky = await callTool(client, 'execute', { remote_session_id: rs, command: 'true', secrets: ['BASH_ENV'] });
    assert.equal(risky.env.status, 'waiting_confirmation', risky.text);
    await callTool(client, 'secret_provide', { action: 'forget', remote_session_id: rs, name: 'BASH_ENV' });
  });

  it('holdfast secret provide in a terminal (tmux): hidden input, the purpose shown, the value handed to the guardian', async () => {
    await h.tmux(['new-session', '-d', '-s', 'provide', '-x', '160', '-y', '20', `${process.execPath} ${CLI_MAIN} secret provide ${rs} API_KEY; sleep 30`]);
    const pane = () => h.tmux(['capture-pane', '-p', '-t', 'provide']);
    await pollUntil('the hidden prompt', async () => /Value of API_KEY \(hidden\)/.test(await pane()), 15_000);
    assert.match(await pane(), /asks for API_KEY: call the staging API/);
    await h.tmux(['send-keys', '-t', 'provide', '-l', value]);
    await h.tmux(['send-keys', '-t', 'provide', 'Enter']);
    await pollUntil('the confirmation', async () => /API_KEY handed to/.test(await pane()), 15_000);
    assert.doesNotMatch(await pane(), new RegExp(value), 'the value was never echoed');
    await h.tmux(['kill-server']);
    const listed = await callTool(client, 'runtime_read', { view: 'secrets', remote_session_id: rs });
    assert.deepEqual((listed.env.data as { secrets: { name: string; purpose: string; via: string }[] }).secrets.map((s) => [s.name, s.purpose, s.via]), [['API_KEY', 'call the staging API', 'cli']]);
    const status = await callTool(client, 'secret_provide', { action: 'status', remote_session_id: rs, name: 'API_KEY' });
    assert.equal(status.env.status, 'succeeded');
  });

  it('every output path shows [secret:API_KEY], also one character per 100 ms, and no file holds the value', async () => {
    const fg = await run('printenv API_KEY; echo "pre-$API_KEY-post"');
    assert.equal(fg.isError, false, fg.text);
    const out = String((fg.env.data as { output: string }).output);
    assert.match(out, /^\[secret:API_KEY\]\r?\npre-\[secret:API_KEY\]-post/);
    assert.doesNotMatch(JSON.stringify(fg), new RegExp(value));
    assert.equal(logText(join(guardianPaths(h.layout, rs).sessionDir, 'pty')).includes(MARK), true, 'the PTY log on disk');

    const slow = await run('printf %s "$API_KEY" | while read -r -n1 c; do printf %s "$c"; sleep 0.1; done; echo');
    assert.equal(String((slow.env.data as { output: string }).output).trim(), MARK, slow.text);

    const bg = await run('echo "bg-$API_KEY"; echo "err-$API_KEY" >&2', { background: true });
    const task = bg.env.context.execution_task_id!;
    const done = await pollUntil('the task to end', async () => {
      const st = await callTool(client, 'execute', { action: 'attach', remote_session_id: rs, execution_task_id: task, yield_time_ms: 5000 });
      return st.env.status === 'accepted' ? null : st;
    });
    // The start result may already show the output of a quick task (attach then shows only what is new).
    assert.match(bg.text + done.text, /bg-\[secret:API_KEY\]/);
    const taskDir = join(guardianPaths(h.layout, rs).tasksDir, task);
    assert.equal(logText(join(taskDir, 'stdout')), `bg-${MARK}\n`, 'the task log files');
    assert.equal(logText(join(taskDir, 'stderr')), `err-${MARK}\n`);
    const resource = await client.readResource({ uri: `holdfast://remote-sessions/${rs}/tasks/${task}/logs` });
    const text = JSON.stringify(resource.contents);
    assert.match(text, /bg-\[secret:API_KEY\]/);
    assert.doesNotMatch(text, new RegExp(value));

    await pollUntil('the observe stream to show the output', () => observed.includes(`pre-${MARK}-post`), 15_000);
    assert.doesNotMatch(observed, new RegExp(value));
    const audit = readFileSync(h.layout.auditLog, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(audit.some((a) => a.event === 'execute.run' && JSON.stringify(a.secrets) === '["API_KEY"]'));
    assert.ok(audit.some((a) => a.event === 'secret.provided' && a.name === 'API_KEY' && a.via === 'cli'));
    assert.deepEqual(filesContaining(h.home, value), [], 'no file under HOLDFAST_HOME holds the value');
  });

  it('a value printed with SGR codes between its bytes, slowly, is [secret:API_KEY] in the result, the logs, attach and observe', async () => {
    // Colour codes and a cursor move inside the value, the second half 100 ms later (another chunk).
    const cmd = `printf 'sgr:%s\\033[1;31m%s\\033[0m' "\${API_KEY:0:4}" "\${API_KEY:4:3}"; sleep 0.1; printf '\\033[2C%s:end\\n' "\${API_KEY:7}"`;
    const fg = await run(cmd);
    assert.equal(fg.isError, false, fg.text);
    assert.match(String((fg.env.data as { output: string }).output), /sgr:\[secret:API_KEY\]/, fg.text);
    assert.doesNotMatch(JSON.stringify(fg), new RegExp(value.slice(4)));
    const bg = await run(cmd, { background: true });
    const task = bg.env.context.execution_task_id!;
    const done = await pollUntil('the task to end', async () => {
      const st = await callTool(client, 'execute', { action: 'attach', remote_session_id: rs, execution_task_id: task, yield_time_ms: 5000 });
      return st.env.status === 'accepted' ? null : st;
    });
    // The start result may already show the output of a quick task (attach then shows only what is new).
    assert.match(bg.text + done.text, /sgr:\[secret:API_KEY\]/);
    assert.doesNotMatch(bg.text + done.text, new RegExp(value.slice(4)));
    const taskDir = join(guardianPaths(h.layout, rs).tasksDir, task);
    assert.equal(logText(join(taskDir, 'stdout')), `sgr:${MARK}:end\n`, 'the task log file');
    await pollUntil('the observe stream to show the output', () => observed.includes(`sgr:${MARK}`), 15_000);
    const stripped = (t: string): string => t.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '').replace(/\\u001b\[[0-?]*[ -/]*[@-~]/g, '');
    for (const [where, t] of [['observe', observed], ['pty log', logText(join(guardianPaths(h.layout, rs).sessionDir, 'pty'))]] as const) {
      assert.equal(stripped(t).includes(value), false, where);
      assert.equal(t.includes(value.slice(0, 4) + '\x1b[1;31m' + value.slice(4, 7)), false, where);
    }
  });

  it('the secret survives restart-daemon and ends with the session', async () => {
    const restart = await h.cli(['restart-daemon']);
    assert.equal(restart.code, 0, restart.stderr);
    const hash = createHash('sha256').update(value).digest('hex');
    const r = await pollUntil('the command after the restart', async () => {
      const x = await run('printf %s "$API_KEY" | sha256sum');
      return x.isError ? null : x;
    }, 20_000);
    assert.match(String((r.env.data as { output: string }).output), new RegExp(hash));
    await callTool(client, 'session', { action: 'close', remote_session_id: rs });
    rs = (await openSession(client, { workspace: 'ws' })).id;
    const gone = await run('printenv API_KEY');
    assert.equal(gone.env.error?.code, 'SECRET_NOT_FOUND', gone.text);
    assert.deepEqual(filesContaining(h.home, value), []);
  });

  for (const mode of ['auto', 'legacy'] as const) it(`URL-mode elicitation (${mode === 'auto' ? '2026-07-28' : '2025-11-25'}): the loopback page pairs once (cookie + CSRF), takes the value, and refuses the URL a second time`, async () => {
    const second = `pw-${randomBytes(6).toString('hex')}`;
    const checks: string[] = [];
    let pageUrl = '';
    const elicitor = new Client({ name: 'elicitor', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode } });
    elicitor.setRequestHandler('elicitation/create', async (req) => {
      const p = req.params as { mode?: string; url?: string; message: string };
      if (p.mode !== 'url' || !p.url) return { action: 'cancel' };
      if (p.message.includes('DECLINED_ONE')) return { action: 'decline' };
      pageUrl = p.url;
      const u = new URL(p.url);
      const token = u.hash.slice(1);
      const base = `${u.origin}${u.pathname}`;
      const json = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', origin: u.origin, ...headers }, body: JSON.stringify(body) });
      const page = await rawRequest(base, { method: 'GET' });
      checks.push(`page ${page.status} ${String(page.headers['content-security-policy']).includes("default-src 'none'")}`);
      checks.push(`foreign origin ${(await rawRequest(`${base}/pair`, json({ token }, { origin: 'http://evil.example' }))).status}`);
      checks.push(`wrong token ${(await rawRequest(`${base}/pair`, json({ token: 'x' }))).status}`);
      const paired = await rawRequest(`${base}/pair`, json({ token }));
      const cookie = String(paired.headers['set-cookie']).split(';')[0]!;
      checks.push(`paired ${paired.status} ${/HttpOnly/.test(String(paired.headers['set-cookie']))}`);
      const csrf = (JSON.parse(paired.body) as { csrf: string }).csrf;
      checks.push(`no csrf ${(await rawRequest(`${base}/value`, json({ value: second }, { cookie }))).status}`);
      checks.push(`no cookie ${(await rawRequest(`${base}/value`, json({ value: second }, { 'x-csrf-token': csrf }))).status}`);
      checks.push(`value ${(await rawRequest(`${base}/value`, json({ value: second }, { cookie, 'x-csrf-token': csrf }))).status}`);
      checks.push(`reused ${(await rawRequest(`${base}/pair`, json({ token }))).status}`);
      return { action: 'accept' };
    });
    await elicitor.connect(new StreamableHTTPClientTransport(new URL(adapter.url), { requestInit: { headers: { Authorization: `Bearer ${ownerToken(h)}` } } }));
    try {
      const r = await callTool(elicitor, 'secret_provide', { action: 'request', remote_session_id: rs, name: 'DB_PASSWORD', purpose: 'migrate the test database' });
      assert.deepEqual(checks, ['page 200 true', 'foreign origin 403', 'wrong token 403', 'paired 200 true', 'no csrf 403', 'no cookie 403', 'value 200', 'reused 410']);
      assert.equal(r.env.status, 'succeeded', r.text);
      assert.equal((r.env.data as { via: string }).via, 'page');
      assert.doesNotMatch(JSON.stringify(r), /127\.0\.0\.1:\d+\/s\//, 'the URL never reaches the model');
      // Gone once used: 410 while the loopback server still runs; once no page is open the server
      // itself stops (within 1–5 s of the answer), and then nothing listens there at all.
      const gone = await rawRequest(pageUrl.split('#')[0]!, { method: 'GET' }).then((x) => String(x.status), (err: NodeJS.ErrnoException) => err.code ?? String(err));
      assert.ok(gone === '410' || gone === 'ECONNREFUSED', `the page is gone once used (got ${gone})`);
      const used = await callTool(client, 'execute', { remote_session_id: rs, command: 'echo "db=$DB_PASSWORD"', secrets: ['DB_PASSWORD'], yield_time_ms: 30_000 });
      assert.match(String((used.env.data as { output: string }).output), /db=\[secret:DB_PASSWORD\]/);

      const declined = await callTool(elicitor, 'secret_provide', { action: 'request', remote_session_id: rs, name: 'OTHER', purpose: 'DECLINED_ONE' });
      assert.equal(declined.env.error?.code, 'SECRET_DECLINED', declined.text);

      const forgot = await callTool(client, 'secret_provide', { action: 'forget', remote_session_id: rs, name: 'DB_PASSWORD' });
      assert.equal((forgot.env.data as { forgotten: boolean }).forgotten, true);
      const after = await callTool(client, 'execute', { remote_session_id: rs, command: 'true', secrets: ['DB_PASSWORD'] });
      assert.equal(after.env.error?.code, 'SECRET_NOT_FOUND');
      assert.deepEqual(filesContaining(h.home, second), []);
    } finally {
      await elicitor.close().catch(() => undefined);
    }
  });
});
