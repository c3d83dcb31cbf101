import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pollUntil, processesWithEnv, TestHome } from './home.js';
import { toolCaller, type ToolReply } from './tools.js';

/** Tools the sandbox scenarios call. */
const TOOLS = ['workspace', 'session', 'execute', 'observe', 'read', 'edit'];

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
    const h = new TestHome({ security: { sandbox: { mode, network: 'off' }, commands: { confirm: [] } } }, { userHomeParent: '/var/tmp' });
    let call: ReturnType<typeof toolCaller>;
    let rs: string;
    let run: (args: Record<string, unknown>) => Promise<ToolReply>;
    let sh: (command: string, yieldMs?: number) => Promise<{ code: number; out: string; text: string }>;
    let net: { server: Server; port: number };

    before(async () => {
      net = await loopbackServer();
      await h.startDaemon();
      call = toolCaller(h.client(), 'p', TOOLS);
      const open = await call('session', { action: 'open', workspace: 'ws' });
      assert.equal(open.env.status, 'succeeded', open.text);
      rs = open.env.data.remote_session_id as string;
      run = (args) => call('execute', { remote_session_id: rs, ...args });
      sh = async (command, yieldMs = 60_000) => {
        const r = await run({ command, yield_time_ms: yieldMs });
        return { code: r.env.data?.exit_code as number, out: (r.env.data?.output as string) ?? '', text: r.text };
      };
      const warm = await sh('true');
      assert.equal(warm.code, 0, warm.text);
    });
    after(async () => {
      net.server.close();
      await h.cleanup();
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
      const etc = await sh(`python3 -c "open('/etc/holdfast-sandbox-probe', 'w')"`);
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
      const py = await sh(`python3 -c "import socket; socket.create_connection(('127.0.0.1', ${net.port}), timeout=5); print('connected')"`);
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
