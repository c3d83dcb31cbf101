import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pollUntil, TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

describe('execute in the session terminal (issue 5)', () => {
  const h = new TestHome();
  let call: ExecSession['call'];
  let rs: string;
  let run: ExecSession['run'];

  before(async () => {
    ({ call, rs, run } = await startExecSession(h));
  });
  after(() => h.cleanup());

  it('exit codes 0, 3, and 130 after Ctrl-C', async () => {
    const ok = await run({ command: 'echo fine' });
    assert.equal(ok.env.status, 'succeeded');
    assert.equal(ok.env.data.exit_code, 0);
    assert.equal(ok.env.data.output, 'fine');
    assert.match(ok.text, /fine\n\[exit code 0\]/);

    const three = await run({ command: 'bash -c "exit 3"' });
    assert.equal(three.env.data.exit_code, 3);
    assert.equal(three.env.status, 'succeeded', 'a non-zero exit is a finished command, not a failed call');

    const long = await run({ command: 'sleep 100', yield_time_ms: 300 });
    assert.equal(long.env.status, 'accepted');
    const id = long.env.data.execution_task_id as string;
    assert.ok(long.env.actions.some((a) => a.arguments.action === 'attach'));
    // A client that shows the model only the text block still gets the whole next call.
    assert.ok(long.text.startsWith(`Still running (${id}); wait for it again with execute(action="attach", execution_task_id="${id}").`), long.text);
    const stopped = await run({ action: 'stdin', execution_task_id: id, keys: ['Ctrl-C'] });
    assert.equal(stopped.env.data.state, 'exited', stopped.text);
    assert.equal(stopped.env.data.exit_code, 130);
  });

  it('action=stop ends a foreground command (signal escalation) and reports it', async () => {
    const long = await run({ command: 'sleep 200', yield_time_ms: 200 });
    const id = long.env.data.execution_task_id as string;
    const r = await run({ action: 'stop', execution_task_id: id });
    assert.equal(r.env.data.state, 'exited', r.text);
    assert.equal(r.env.data.exit_code, 130);
    const st = await run({ action: 'status', execution_task_id: id });
    assert.equal(st.env.data.exit_code, 130);
  });

  it('cd and export persist; a one-off cwd/env does not change them', async () => {
    mkdirSync(join(h.workspace, 'sub', 'deeper'), { recursive: true });
    await run({ command: 'cd sub && export HF_PERSIST=kept' });
    const r = await run({ command: 'pwd; echo "v=$HF_PERSIST"' });
    assert.equal(r.env.data.output, `${join(h.workspace, 'sub')}\nv=kept`);
    const once = await run({ command: 'pwd; echo "e=$ONLY"', cwd: 'sub/deeper', env: { ONLY: 'here' } });
    assert.equal(once.env.data.output, `${join(h.workspace, 'sub', 'deeper')}\ne=here`);
    const back = await run({ command: 'pwd; echo "e=$ONLY"' });
    assert.equal(back.env.data.output, `${join(h.workspace, 'sub')}\ne=`);
    await run({ command: 'cd ..' });
  });

  it('a prompt is answered through stdin (read -p), returning early with awaiting_input', async () => {
    const started = Date.now();
    const r = await run({ command: "read -p 'Name? ' n; echo hi $n", yield_time_ms: 30_000 });
    assert.ok(Date.now() - started < 15_000, 'returned long before the yield');
    assert.equal(r.env.status, 'accepted');
    assert.equal(r.env.data.awaiting_input, true);
    assert.match(r.env.data.screen, /Name\? $/m);
    const answer = r.env.actions.find((a) => a.arguments.action === 'stdin');
    assert.ok(answer, 'a ready stdin action');
    const done = await run({ action: 'stdin', execution_task_id: r.env.data.execution_task_id, text: 'Ada', keys: ['Enter'] });
    assert.equal(done.env.data.exit_code, 0, done.text);
    assert.match(done.env.data.output, /hi Ada$/);
  });

  it('an interactive menu (raw keys) returns early and is answered with Down and Enter (field failure #1)', async () => {
    writeFileSync(
      join(h.workspace, 'menu.py'),
      [
        'import os, sys, termios, tty',
        'choices = ["vanilla", "react", "vue"]',
        'print("? Select a framework:"); print("\\n".join("  " + c for c in choices))',
        'sys.stdout.write("Use arrow keys> "); sys.stdout.flush()',
        'fd = sys.stdin.fileno(); old = termios.tcgetattr(fd); tty.setraw(fd)',
        'buf = b""',
        'try:',
        '    while not buf.endswith(b"\\r"):',
        '        buf += os.read(fd, 16)',
        'finally:',
        '    termios.tcsetattr(fd, termios.TCSADRAIN, old)',
        'print("\\nchose", choices[min(buf.count(b"\\x1b[B"), 2)])',
      ].join('\n'),
    );
    const r = await run({ command: 'python3 menu.py', yield_time_ms: 30_000 });
    assert.equal(r.env.data.awaiting_input, true, r.text);
    assert.match(r.env.data.screen, /Select a framework/);
    const done = await run({ action: 'stdin', execution_task_id: r.env.data.execution_task_id, keys: ['Down', 'Enter'] });
    assert.equal(done.env.data.exit_code, 0, done.text);
    assert.match(done.env.data.output, /chose react$/);
  });

  it('console-only programs see a terminal: ssh -V prints its version (field failure #23)', async () => {
    const r = await run({ command: 'ssh -V' });
    assert.equal(r.env.data.exit_code, 0);
    assert.match(r.env.data.output, /^OpenSSH_/);
  });

  it('stdin is refused when nothing runs in the terminal (it would type a command nobody judged)', async () => {
    const r = await run({ action: 'stdin', text: 'rm -rf ~\n' });
    assert.equal(r.env.status, 'failed');
    assert.equal(r.env.error!.code, 'BAD_REQUEST');
    assert.match(r.env.error!.message, /no command is running/);
  });

  it('stdin needs the id of the command running in the terminal; input never reaches an idle shell', async () => {
    const done = await run({ command: 'echo finished-before' });
    const finishedId = done.env.data.execution_task_id as string;
    const r = await run({ command: "read -p 'Who? ' n; echo hello $n", yield_time_ms: 30_000 });
    assert.equal(r.env.data.awaiting_input, true, r.text);
    const id = r.env.data.execution_task_id as string;

    const noId = await run({ action: 'stdin', text: 'touch typed-without-id', keys: ['Enter'] });
    assert.equal(noId.env.error!.code, 'BAD_REQUEST');
    assert.match(noId.env.error!.message, /needs execution_task_id/);
    assert.ok(noId.env.error!.message.includes(id), 'the message names the running command');
    const wrongId = await run({ action: 'stdin', execution_task_id: finishedId, text: 'touch typed-for-finished', keys: ['Enter'] });
    assert.equal(wrongId.env.error!.code, 'BAD_REQUEST');
    assert.match(wrongId.env.error!.message, new RegExp(`${finishedId} is not running in the terminal \\(the terminal runs ${id} instead\\)`));

    const answered = await run({ action: 'stdin', execution_task_id: id, text: 'Grace', keys: ['Enter'] });
    assert.equal(answered.env.data.exit_code, 0, answered.text);
    assert.match(answered.env.data.output, /hello Grace$/);
    // Its command is over: the same id now refers to nothing that reads input.
    const late = await run({ action: 'stdin', execution_task_id: id, text: 'touch typed-too-late', keys: ['Enter'] });
    assert.equal(late.env.error!.code, 'BAD_REQUEST');
    assert.match(late.env.error!.message, /no command is running in the terminal/);
    await run({ command: 'true' });
    for (const f of ['typed-without-id', 'typed-for-finished', 'typed-too-late']) assert.equal(existsSync(join(h.workspace, f)), false, `${f} was never typed into the shell`);
  });

  it('cwd stays inside the workspace: .., absolute paths outside and symlinks leading out are refused', async () => {
    mkdirSync(join(h.workspace, 'inner', 'deep'), { recursive: true });
    symlinkSync('/etc', join(h.workspace, 'etc-link'));
    symlinkSync('inner', join(h.workspace, 'inner-link'));
    for (const cwd of ['../..', '..', 'inner/../..', '/etc', '/', 'etc-link', 'inner-link/../etc-link']) {
      const r = await run({ command: 'pwd', cwd });
      assert.equal(r.env.status, 'failed', `cwd ${cwd}: ${r.text}`);
      assert.equal(r.env.error!.code, 'PATH_OUTSIDE_WORKSPACE', `cwd ${cwd}: ${r.text}`);
    }
    const bg = await run({ argv: ['pwd'], shell: false, cwd: 'etc-link' });
    assert.equal(bg.env.error!.code, 'PATH_OUTSIDE_WORKSPACE', 'argv runs are held to the same rule');
    assert.equal((await run({ command: 'pwd', cwd: 'inner/deep' })).env.data.output, join(h.workspace, 'inner', 'deep'));
    assert.equal((await run({ command: 'pwd', cwd: 'inner-link' })).env.data.output, join(h.workspace, 'inner'), 'a symlink that stays inside is followed');
    assert.equal((await run({ command: 'pwd', cwd: join(h.workspace, 'inner') })).env.data.output, join(h.workspace, 'inner'), 'an absolute path inside the workspace is accepted');
    assert.equal((await run({ command: 'pwd', cwd: 'missing' })).env.error!.code, 'BAD_REQUEST');
  });

  it('runs with a real TTY: isatty is True True, tty names a pts', async () => {
    const r = await run({ command: `python3 -c 'import sys; print(sys.stdin.isatty(), sys.stdout.isatty())'; tty` });
    assert.equal(r.env.data.exit_code, 0, r.text);
    const [first, second] = (r.env.data.output as string).split('\n');
    assert.equal(first, 'True True');
    assert.match(second!, /^\/dev\/pts\/\d+$/);
  });

  it('git log in a repository with 300 commits returns without a pager', async () => {
    const repo = join(h.workspace, 'repo300');
    mkdirSync(repo);
    const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' } });
    git('init', '-q');
    // 300 commits through fast-import (one process, not 300).
    let stream = '';
    for (let i = 1; i <= 300; i++) stream += `commit refs/heads/main\ncommitter t <t@x> ${1700000000 + i} +0000\ndata ${`commit ${i}`.length}\ncommit ${i}\n\n`;
    execFileSync('git', ['-C', repo, 'fast-import', '--quiet'], { input: stream });
    git('symbolic-ref', 'HEAD', 'refs/heads/main');
    const started = Date.now();
    const r = await run({ command: 'git log', cwd: 'repo300', yield_time_ms: 30_000 });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(r.env.data.exit_code, 0);
    assert.equal(r.env.data.awaiting_input, false);
    const out = r.env.data.output as string;
    assert.equal(out.split("\n").filter((l) => /^commit [0-9a-f]{40}( \(.*\))?$/.test(l)).length, 300, JSON.stringify(out.slice(0, 300)));
    assert.match(out, /commit 300/);
    assert.match(out, /commit 1$/);
    assert.ok(Date.now() - started < 10_000);
  });

  it('colour and bracketed-paste noise never reach the text', async () => {
    writeFileSync(join(h.workspace, 'colour.txt'), 'x\n');
    const r = await run({ command: `printf '\\033[31mred\\033[0m \\033[1;32mgreen\\033[m\\n'; ls --color=always colour.txt; printf 'a\\rb\\n'` });
    const out = r.env.data.output as string;
    assert.equal(out, 'red green\ncolour.txt\nb');
    assert.ok(!/\x1b|\[\?2004|\]633;|\]133;/.test(out + r.text), JSON.stringify(out));
  });

  it('a second foreground command gets command_already_running at once', async () => {
    const first = await run({ command: 'sleep 30', yield_time_ms: 100 });
    const id = first.env.data.execution_task_id as string;
    const started = Date.now();
    const second = await run({ command: 'echo second' });
    assert.ok(Date.now() - started < 3000, 'no hidden queue');
    assert.equal(second.env.status, 'failed');
    assert.equal(second.env.error!.code, 'COMMAND_ALREADY_RUNNING');
    assert.equal(second.env.data.running.execution_task_id, id);
    const bg = second.env.actions.find((a) => a.arguments.background === true);
    assert.ok(bg, 'offers to run it as a background task');
    const viaBg = await call(bg.tool, bg.arguments);
    assert.ok(['accepted', 'succeeded'].includes(viaBg.env.status), viaBg.text);
    assert.equal(viaBg.env.data.kind, 'background');
    // offset 0: from the start, whatever the first answer showed already (issue 8).
    const done = await run({ action: 'attach', execution_task_id: viaBg.env.data.execution_task_id, yield_time_ms: 10_000, offset: 0 });
    assert.equal(done.env.data.stdout, 'second');
    // A `cd` (or `export`…) in a background process would change nothing: no such offer.
    for (const command of ['cd sub', 'export A=1', 'source ./env.sh']) {
      const stateful = await run({ command });
      assert.equal(stateful.env.error!.code, 'COMMAND_ALREADY_RUNNING', command);
      assert.equal(stateful.env.actions.find((a) => a.arguments.background === true), undefined, `${command}: no background offer`);
      assert.match(stateful.env.error!.message, /changes the session shell itself/);
    }
    await run({ action: 'stop', execution_task_id: id });
    await pollUntil('the terminal to be free', async () => (await run({ command: 'true' })).env.data?.exit_code === 0, 10_000, 100);
  });
});
