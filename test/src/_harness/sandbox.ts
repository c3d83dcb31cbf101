import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pollUntil, processesWithEnv, TestHome } from './home.js';
import { toolCaller, type ToolReply } from './tools.js';

/** Tools the sandbox scenarios call. */
const TOOLS = ['workspace', 'session', 'execute', 'observe', 'read', 'edit', 'mcp_tool'];

/**
 * A minimal MCP stdio server (newline-delimited JSON-RPC, Node built-ins only) with one read-only
 * tool `probe {outside, port}`: writes a file in its cwd (the workspace) and at `outside`, and
 * connects to 127.0.0.1:`port`; answers what worked, and which node runs it, as JSON text.
 */
const PROBE_SERVER = `
const fs = require('node:fs');
const net = require('node:net');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const tryWrite = (p) => { try { fs.writeFileSync(p, 'x'); return 'written'; } catch (e) { return e.code || String(e); } };
const tryConnect = (port) => new Promise((r) => {
  const s = net.connect({ host: '127.0.0.1', port });
  const t = setTimeout(() => { s.destroy(); r('timeout'); }, 3000);
  s.once('connect', () => { clearTimeout(t); s.destroy(); r('connected'); });
  s.once('error', (e) => { clearTimeout(t); r(e.code || String(e)); });
});
let buf = '';
process.stdin.on('data', async (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'probe', version: '1.0.0' } } });
    else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'probe', description: 'probe the sandbox', inputSchema: { type: 'object', properties: { outside: { type: 'string' }, port: { type: 'number' } } }, annotations: { readOnlyHint: true } }] } });
    else if (m.method === 'tools/call') {
      const a = m.params.arguments;
      const out = { inside: tryWrite('from-mcp.txt'), outside: tryWrite(a.outside), net: await tryConnect(a.port), sandbox: process.env.HOLDFAST_SANDBOX || null, node: process.execPath };
      send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify(out) }] } });
    } else if (m.method === 'ping') send({ jsonrpc: '2.0', id: m.id, result: {} });
    else send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });
  }
});
`;

/**
 * A folder outside the workspace (under the OS temp dir, which bwrap hides) holding the probe
 * server and a `node` the way CI's Node 22 lives: `bin/node` a symlink to a real binary in
 * `lib/node` (a hard link, or copy, of the running node). Put `bin` first on the daemon's PATH.
 */
function tempNode(): { dir: string; bin: string; server: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hf-sandbox-node-'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'lib'));
  const real = realpathSync(process.execPath);
  try {
    linkSync(real, join(dir, 'lib', 'node'));
  } catch {
    copyFileSync(real, join(dir, 'lib', 'node'));
  }
  symlinkSync(join(dir, 'lib', 'node'), join(dir, 'bin', 'node'));
  const server = join(dir, 'probe-server.cjs');
  writeFileSync(server, PROBE_SERVER);
  return { dir, bin: join(dir, 'bin'), server };
}

/** A loopback HTTP server started by the test, outside any sandbox. */
async function loopbackServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end('reachable'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * The scenarios of issue 17 "Must show" for one sandbox mode, against the real mechanism (Debian
 * `bubblewrap`, or the Landlock helper built by `npm ci`): writes outside the workspace and /tmp
 * fail, the network is gone with `network: off` (a loopback server outside included), npm and git
 * work inside, the PTY keeps isatty and job control, and `holdfast kill` leaves no process.
 */
export function sandboxScenarios(mode: 'bwrap' | 'landlock'): void {
  describe(`sandbox mode ${mode}, network off (issue 17)`, () => {
    // HOME outside /tmp: /tmp is private (bwrap) or writable (Landlock) in the sandbox.
    const h = new TestHome(
      {
        security: { sandbox: { mode, network: 'off' }, commands: { confirm: [] } },
        mcp_servers: { probe: { command: 'node', args: ['${HF_PROBE_SERVER}'] } },
      },
      // holdfast's home outside /tmp too, as ~/.holdfast is: Landlock leaves all of /tmp writable.
      { homeParent: '/var/tmp', userHomeParent: '/var/tmp' },
    );
    let node: ReturnType<typeof tempNode>;
    let call: ReturnType<typeof toolCaller>;
    let rs: string;
    let run: (args: Record<string, unknown>) => Promise<ToolReply>;
    let sh: (command: string, yieldMs?: number) => Promise<{ code: number; out: string; text: string }>;
    /** Like `sh`, with the person's yes when the policy asks: the sandbox is what must stop it. */
    let shConfirmed: (command: string) => Promise<{ code: number; out: string; text: string; asked: boolean }>;
    let net: { server: Server; port: number };

    before(async () => {
      net = await loopbackServer();
      node = tempNode();
      await h.startDaemon({ PATH: `${node.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HF_PROBE_SERVER: node.server });
      call = toolCaller(h.client(), 'p', TOOLS);
      const open = await call('session', { action: 'open', workspace: 'ws' });
      assert.equal(open.env.status, 'succeeded', open.text);
      rs = open.env.data.remote_session_id as string;
      run = (args) => call('execute', { remote_session_id: rs, ...args });
      sh = async (command, yieldMs = 60_000) => {
        const r = await run({ command, yield_time_ms: yieldMs });
        return { code: r.env.data?.exit_code as number, out: (r.env.data?.output as string) ?? '', text: r.text };
      };
      shConfirmed = async (command) => {
        let r = await run({ command, yield_time_ms: 60_000 });
        const asked = r.env.status === 'waiting_confirmation';
        if (asked) r = await run({ command, yield_time_ms: 60_000, user_confirmed: true, idempotency_key: r.env.data.confirmation.idempotency_key });
        return { code: r.env.data?.exit_code as number, out: (r.env.data?.output as string) ?? '', text: r.text, asked };
      };
      const warm = await sh('true');
      assert.equal(warm.code, 0, warm.text);
    });
    after(async () => {
      net.server.close();
      await h.cleanup();
      rmSync(node.dir, { recursive: true, force: true });
    });

    it('the effective mode is in session(open) and observe(view=session)', async () => {
      const again = await call('session', { action: 'open', workspace: 'ws' });
      assert.deepEqual(again.env.data.sandbox, { mode, network: 'off' });
      assert.match(again.text, new RegExp(`sandbox ${mode} \\(network off\\)`));
      const o = await call('observe', { view: 'session', remote_session_id: rs });
      assert.deepEqual(o.env.data.session.sandbox, { mode, network: 'off' });
      const env = await sh('echo "$HOLDFAST_SANDBOX $HOLDFAST_SANDBOX_NETWORK"');
      assert.equal(env.out, `${mode} off`);
    });

    it('writes outside the workspace fail with a read-only or permission error; the workspace and /tmp work', async () => {
      const home = await sh('touch ~/outside');
      assert.notEqual(home.code, 0);
      assert.match(home.out, /Read-only file system|Permission denied/);
      assert.ok(!existsSync(join(h.userHome, 'outside')));
      // The policy asks before interpreter code that writes; with the person's yes the kernel refuses.
      const etc = await shConfirmed(`python3 -c "open('/etc/holdfast-sandbox-probe', 'w')"`);
      assert.equal(typeof etc.code, 'number', etc.text);
      assert.notEqual(etc.code, 0);
      assert.match(etc.out, /Read-only file system|Permission denied/);
      const ok = await sh('echo a > inside.txt && echo b > /tmp/hf-sandbox-tmp && cat inside.txt /tmp/hf-sandbox-tmp && rm /tmp/hf-sandbox-tmp');
      assert.equal(ok.code, 0, ok.text);
      assert.equal(ok.out, 'a\nb');
      assert.ok(existsSync(join(h.workspace, 'inside.txt')));
    });

    it('with network off, curl and python3 cannot reach a loopback server started outside', async () => {
      const outside = await (await fetch(`http://127.0.0.1:${net.port}/`)).text();
      assert.equal(outside, 'reachable', 'the server answers outside the sandbox');
      const curl = await sh(`curl -sS --max-time 5 http://127.0.0.1:${net.port}/`);
      assert.notEqual(curl.code, 0, curl.text);
      assert.doesNotMatch(curl.out, /reachable/);
      const py = await shConfirmed(`python3 -c "import socket; socket.create_connection(('127.0.0.1', ${net.port}), timeout=5); print('connected')"`);
      assert.equal(typeof py.code, 'number', `it ran: ${py.text}`);
      assert.notEqual(py.code, 0, py.text);
      assert.doesNotMatch(py.out, /connected/);
    });

    it('npm install of a local tarball and git commit work inside', async () => {
      const pkg = join(h.workspace, 'pkg');
      mkdirSync(pkg);
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'hf-local-pkg', version: '1.0.0', main: 'index.js' }));
      writeFileSync(join(pkg, 'index.js'), 'module.exports = 42;\n');
      execFileSync('npm', ['pack', '--silent', '--pack-destination', h.workspace], { cwd: pkg, env: h.env(), stdio: 'ignore' });
      mkdirSync(join(h.workspace, 'app'));
      writeFileSync(join(h.workspace, 'app', 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
      const npm = await sh('cd app && npm install --no-audit --no-fund --offline ../hf-local-pkg-1.0.0.tgz && node -e "console.log(require(\'hf-local-pkg\'))"; cd ..', 120_000);
      assert.equal(npm.code, 0, npm.text);
      assert.match(npm.out, /42$/);
      const git = await sh('git init -q repo && cd repo && echo x > f && git add f && git -c user.name=t -c user.email=t@e commit -qm one && git log --oneline | wc -l; cd ..');
      assert.equal(git.code, 0, git.text);
      assert.equal(git.out.trim(), '1');
    });

    it('the PTY keeps isatty, job control (Ctrl-Z, jobs), background tasks, Ctrl-C and prompts', async () => {
      const tty = await sh(`python3 -c "import os; print(os.isatty(0), os.isatty(1))"`);
      assert.equal(tty.out, 'True True');
      // A command too long to type is spilled to a file in the session folder the sandbox keeps visible.
      const spilled = await sh(`echo ${'x'.repeat(5000)} | wc -c`);
      assert.equal(spilled.out, '5001', spilled.text);
      // A lone `&` is refused by the command policy: `sleep 5 &` runs as a background task, and
      // the shell's own job control is shown with Ctrl-Z, jobs and kill %1.
      const fg = await run({ command: 'sleep 100', yield_time_ms: 300 });
      const suspended = await run({ action: 'stdin', execution_task_id: fg.env.data.execution_task_id, keys: ['Ctrl-Z'] });
      assert.equal(suspended.env.data.exit_code, 148, suspended.text);
      const jobs = await sh('jobs; kill %1');
      assert.match(jobs.out, /\[1\]\+\s+Stopped\s+sleep 100/);
      const bg = await run({ command: 'sleep 5', background: true });
      assert.equal(bg.env.status, 'accepted', bg.text);
      await run({ action: 'stop', execution_task_id: bg.env.data.execution_task_id });
      const task = await run({ command: 'sleep 0.2; touch from-task; echo task-done', background: true });
      assert.equal(task.env.status, 'accepted', task.text);
      const done = await run({ action: 'attach', execution_task_id: task.env.data.execution_task_id, yield_time_ms: 30_000 });
      assert.equal(done.env.data.exit_code, 0, done.text);
      assert.match(done.env.data.stdout, /task-done/);
      assert.ok(existsSync(join(h.workspace, 'from-task')));
      const escape = await run({ command: 'touch ~/from-task', background: true });
      const refused = await run({ action: 'attach', execution_task_id: escape.env.data.execution_task_id, yield_time_ms: 30_000 });
      assert.notEqual(refused.env.data.exit_code, 0, 'tasks run in the same sandbox');
      const long = await run({ command: 'sleep 100', yield_time_ms: 300 });
      assert.equal(long.env.status, 'accepted');
      const stopped = await run({ action: 'stdin', execution_task_id: long.env.data.execution_task_id, keys: ['Ctrl-C'] });
      assert.equal(stopped.env.data.exit_code, 130, stopped.text);
      const after = await sh('echo still here');
      assert.equal(after.out, 'still here');
      const prompt = await run({ command: "read -p 'Name? ' n; echo hi $n", yield_time_ms: 30_000 });
      assert.equal(prompt.env.data.awaiting_input, true, 'the input probe sees the shell inside the sandbox');
      const answered = await run({ action: 'stdin', execution_task_id: prompt.env.data.execution_task_id, text: 'Ada', keys: ['Enter'] });
      assert.match(answered.env.data.output, /hi Ada$/);
    });

    it('an upstream MCP stdio server runs in the same sandbox: no write outside the workspace, no network', async () => {
      const outside = join(h.userHome, 'from-mcp-outside');
      const args = { action: 'call', remote_session_id: rs, server: 'probe', tool: 'probe', arguments: { outside, port: net.port } };
      let r = await call('mcp_tool', args);
      if (r.env.status === 'waiting_confirmation') r = await call('mcp_tool', { ...args, user_confirmed: true });
      assert.equal(r.env.status, 'succeeded', r.text);
      const got = JSON.parse((r.raw.content as { text: string }[])[0]!.text) as Record<string, string>;
      assert.equal(got.inside, 'written', r.text);
      assert.ok(existsSync(join(h.workspace, 'from-mcp.txt')), 'the server runs in the workspace and may write there');
      assert.match(got.outside!, /EROFS|EACCES/, r.text);
      assert.ok(!existsSync(outside));
      assert.notEqual(got.net, 'connected', r.text);
      assert.equal(got.sandbox, mode);
      // bwrap binds the symlink's target at its path, so /proc/self/exe may name either one.
      assert.ok([join(node.dir, 'lib', 'node'), join(node.dir, 'bin', 'node')].includes(got.node!), `the node first on PATH (under the temp dir, a symlink) runs it: ${got.node}`);
    });

    it("the session's own shell files (display.sh, rc files, spilled commands) are read-only inside the sandbox", async () => {
      const dir = join(h.layout.sessionsDir, rs, 'shell');
      // The policy asks before a write into holdfast's own folder; the person says yes here, so the
      // kernel boundary is what is tested.
      const tamper = await shConfirmed(`for f in ${dir}/*; do [ -f "$f" ] && { echo 'touch ${h.workspace}/tampered' >> "$f" && echo "wrote $f"; }; done; echo x > ${dir}/display.sh && echo wrote-display; echo tamper-ran`);
      assert.match(tamper.out, /tamper-ran$/, tamper.text);
      assert.doesNotMatch(tamper.out, /wrote/, tamper.text);
      // A command too long to type is read from a spilled file: it cannot rewrite that file either.
      const spilled = await shConfirmed(`: ${'y'.repeat(5000)}; for f in ${dir}/cmd/*.sh; do echo 'touch ${h.workspace}/tampered' >> "$f" 2>/dev/null && echo wrote-spill; done; echo "spilled $(ls ${dir}/cmd | wc -l)"`);
      assert.ok(spilled.asked, 'the policy asks before a write into the session folder');
      assert.match(spilled.out, /(Read-only file system|Permission denied)[^]*spilled [1-9]\d*$/, spilled.text);
      assert.doesNotMatch(spilled.out, /wrote-spill/, spilled.text);
      // display.sh is data: a line of code in it is never run, DISPLAY is taken as a plain value.
      writeFileSync(join(dir, 'display.sh'), `generation 9999\nset DISPLAY :77\ntouch ${h.workspace}/tampered\n$(touch ${h.workspace}/tampered)\n`);
      await sh('true'); // the prompt after it reads the file
      const display = await sh('echo "display=$DISPLAY"');
      assert.equal(display.out, 'display=:77', display.text);
      assert.ok(!existsSync(join(h.workspace, 'tampered')), 'nothing written into the shell files ran');
    });

    it('no process inside can push input into the terminal with TIOCSTI', async () => {
      // TIOCSTI would queue a line the shell runs after the prompt, never judged by the policy.
      const push = await sh(`python3 -c "import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b'#')"; echo "rc=$?"`);
      assert.match(push.out, /Operation not permitted/, push.text);
      assert.match(push.out, /rc=1$/, push.text);
      const other = await sh(`python3 -c "import fcntl, termios, struct; print(struct.unpack('hhhh', fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8)))[0] > 0)"`);
      assert.equal(other.out, 'True', 'other terminal ioctls still work');
    });

    it('`holdfast kill` leaves no process of the session', async () => {
      await run({ command: 'sleep 1000', background: true });
      const marker = `HOLDFAST_SESSION=${rs}`;
      assert.ok(processesWithEnv(marker).length > 0);
      const r = await h.cli(['kill', rs]);
      assert.equal(r.code, 0, r.stderr);
      await pollUntil('every process of the session to end', () => processesWithEnv(marker).length === 0, 10_000);
    });
  });
}
