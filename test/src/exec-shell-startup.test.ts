/**
 * Session shells on ordinary machines (issue 9), through the daemon: a `.bashrc` that waits at a
 * prompt or sleeps past the rc timeout is skipped and `session(open)`, the first `execute` and
 * `holdfast doctor` say so, naming the file; the default 6 s timeout is tested once; a daemon
 * started without `LANG` still gives its shells a UTF-8 locale; a command sent while the shell
 * loads its rc files answers after its own yield. The user's HOME is the test's own, with one
 * `.bashrc` whose behaviour depends on the workspace the shell starts in.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pollUntil, TestHome } from './_harness/home.js';
import { toolCaller, type ToolReply } from './_harness/tools.js';

const LOCALE_VARS = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'LC_COLLATE', 'LC_NUMERIC', 'LC_TIME', 'LC_MONETARY'];

describe('session shell start-up on real machines', { concurrency: 4 }, () => {
  const h = new TestHome();
  const ws = (name: string): string => join(h.home, name);
  let call: ReturnType<typeof toolCaller>;
  const open = async (workspace: string): Promise<{ reply: ToolReply; ms: number }> => {
    const t0 = Date.now();
    const reply = await call('session', { action: 'open', workspace });
    return { reply, ms: Date.now() - t0 };
  };

  before(async () => {
    for (const name of ['ws-read', 'ws-sleep', 'ws-cold']) mkdirSync(ws(name));
    writeFileSync(join(h.workspace, 'café.txt'), '');
    writeFileSync(
      join(h.userHome, '.bashrc'),
      ['case $PWD in', '  */ws-read) read -p "passphrase: " pass ;;', '  */ws-sleep) sleep 8 ;;', '  */ws-cold) sleep 3 ;;', 'esac', ''].join('\n'),
    );
    const cfg = `workspaces:\n${['ws', 'ws-read', 'ws-sleep', 'ws-cold'].map((n) => `  - name: ${n}\n    path: ${n === 'ws' ? h.workspace : ws(n)}\n`).join('')}`;
    writeFileSync(h.layout.config, cfg, { mode: 0o600 });
    await h.startDaemon({}, LOCALE_VARS);
    call = toolCaller(h.client());
  });
  after(() => h.cleanup());

  it('a .bashrc waiting at read -p: session(open), the first execute and doctor say it was skipped and which file', async () => {
    const { reply, ms } = await open('ws-read');
    assert.equal(reply.isError, false, reply.text);
    assert.ok(ms < 5000, `decided without the 6 s timeout (${ms} ms)`);
    const bashrc = join(h.userHome, '.bashrc');
    assert.match(reply.text, new RegExp(`rc files skipped: ${bashrc.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} waited for input at "passphrase:", so the shell runs with /etc/profile and ~/\\.profile`));
    assert.deepEqual(reply.env.data.shell.rc_skipped, { reason: 'input', file: bashrc, detail: 'waited for input at "passphrase:"', loaded: 'login' });
    assert.equal(reply.env.hints.rc_skipped, true);
    const rs = reply.env.context.remote_session_id!;
    const first = await call('execute', { remote_session_id: rs, command: 'echo "$PWD"', yield_time_ms: 20_000 });
    assert.equal(first.env.data.output, ws('ws-read'));
    assert.match(String(first.env.hints.shell_notice), /^rc files skipped: .*\.bashrc waited for input/);
    assert.match(first.text, /^Note: rc files skipped/);
    const doctor = await h.cli(['doctor', '--json']);
    const check = (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; warn?: boolean; detail: string }[] }).checks.find((c) => c.name === 'shell start-up');
    assert.ok(check && check.ok && check.warn === true, doctor.stdout);
    assert.match(check.detail, new RegExp(`look at ${bashrc.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it waited for input at "passphrase:"`));
    const text = await h.cli(['doctor']);
    assert.match(text.stdout, /^WARN shell start-up: look at .*\.bashrc/m);
  });

  it('with the default rc timeout, a .bashrc that sleeps 8 s is skipped after 6 s', async () => {
    const { reply, ms } = await open('ws-sleep');
    assert.equal(reply.isError, false, reply.text);
    assert.ok(ms >= 5500 && ms < 12_000, `open waited for the 6 s timeout and the fallback (${ms} ms)`);
    assert.match(reply.text, /rc files skipped: .*\.bashrc did not reach a prompt within 6 s \(still running: sleep 8\)/);
  });

  it('a daemon started without LANG gives its shells a UTF-8 locale', async () => {
    const { reply } = await open('ws');
    const rs = reply.env.context.remote_session_id!;
    const run = async (command: string): Promise<string> => String((await call('execute', { remote_session_id: rs, command })).env.data.output);
    assert.equal(await run('ls'), 'café.txt');
    assert.equal((await run('printf é | wc -m')).trim(), '1');
    assert.match(await run('locale charmap'), /^UTF-8$/);
  });

  it('a command sent while the shell loads its rc files answers after its yield, then runs', async () => {
    const { reply } = await open('ws-cold');
    const rs = reply.env.context.remote_session_id!;
    // reset_shell answers once the new shell is ready (issue 8): the command goes in while it loads.
    const shell = async (): Promise<{ generation: number; ready: boolean }> => (await call('observe', { view: 'session', remote_session_id: rs })).env.data.shell;
    const gen = (await shell()).generation;
    const reset = call('session', { action: 'reset_shell', remote_session_id: rs });
    await pollUntil('the new shell to be loading', async () => {
      const sh = await shell();
      return sh.generation > gen && !sh.ready ? sh : null;
    });
    const t0 = Date.now();
    const r = await call('execute', { remote_session_id: rs, command: 'echo "cold start"', yield_time_ms: 1000 });
    const ms = Date.now() - t0;
    assert.ok(ms < 2500, `answered after its 1 s yield (${ms} ms)`);
    assert.equal(r.env.status, 'accepted', r.text);
    assert.equal(r.env.hints.queued, true);
    assert.match(r.text, /^Queued: the session's shell is still loading its start-up files/);
    const done = await call('execute', { action: 'attach', remote_session_id: rs, execution_task_id: r.env.context.execution_task_id, yield_time_ms: 20_000 });
    assert.deepEqual([done.env.data.state, done.env.data.exit_code, done.env.data.output], ['exited', 0, 'cold start']);
    const answered = await reset;
    assert.equal(answered.isError, false, answered.text);
    assert.equal(answered.env.data.shell_pid, (await call('observe', { view: 'session', remote_session_id: rs })).env.data.shell.pid, 'reset_shell reported the shell that stayed');
  });
});
