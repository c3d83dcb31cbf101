import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_COMMAND_RULES } from '@holdfast/shared/config';
import { pollUntil, TestHome } from './_harness/home.js';
import { startExecSession, type ExecSession } from './_harness/tools.js';

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };

describe('the command policy as execute applies it (issue 5)', () => {
  const h = new TestHome({
    security: {
      commands: {
        deny: [...DEFAULT_COMMAND_RULES.deny, 'sudo'],
        confirm: [...DEFAULT_COMMAND_RULES.confirm, 'rm -rf', 'touch'],
        confirm_ttl_s: 2,
      },
    },
  });
  let call: ExecSession['call'];
  let rs: string;
  let run: ExecSession['run'];
  const ws = (p: string) => join(h.workspace, p);
  const audit = (): { event: string; [k: string]: unknown }[] =>
    readFileSync(h.layout.auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string });

  before(async () => {
    ({ call, rs, run } = await startExecSession(h));
  });
  after(() => h.cleanup());

  it('rm -rf / is denied before anything runs, and the refusal is audited', async () => {
    const r = await run({ command: 'rm -rf /' });
    assert.equal(r.env.status, 'failed');
    assert.equal(r.env.error!.code, 'POLICY_DENIED');
    assert.equal(r.env.data.policy.segments[0].rule, 'deny: rm -rf /');
    assert.equal(r.env.context.execution_task_id, undefined, 'no task was created');
    const last = audit().at(-1)!;
    assert.equal(last.event, 'execute.refused');
    assert.equal(last.command, 'rm -rf /');
    assert.equal(statSync(h.layout.auditLog).mode & 0o777, 0o600);
  });

  it('exit in the session shell asks first (it would end the session); in a subshell or a background task it just runs', async () => {
    const r = await run({ command: 'cd /tmp && exit' });
    assert.equal(r.env.status, 'waiting_confirmation', r.text);
    assert.match(r.env.data.confirmation.summary, /built-in: ends the session/);
    assert.equal((await run({ command: 'echo $$' })).env.status, 'succeeded', 'the session is still there');
    const sub = await run({ command: '( exit 6 )' });
    assert.equal(sub.env.data.exit_code, 6);
    const bg = await run({ command: 'exit 7', background: true });
    assert.ok(bg.env.data.execution_task_id, bg.text);
    // It may already have finished by the time the answer is written.
    const done = await pollUntil('the background exit to finish', async () => {
      const st = await run({ action: 'status', execution_task_id: bg.env.data.execution_task_id });
      return st.env.data.state === 'running' ? null : st;
    });
    assert.equal(done.env.data.exit_code, 7, done.text);
    assert.equal((await run({ command: 'true' })).env.data.exit_code, 0);
  });

  it('/usr/bin/sudo ls and "rm" -rf x are caught by their rules', async () => {
    const sudo = await run({ command: '/usr/bin/sudo ls' });
    assert.equal(sudo.env.error!.code, 'POLICY_DENIED');
    assert.equal(sudo.env.data.policy.segments[0].rule, 'deny: sudo');
    const rm = await run({ command: '"rm" -rf x' });
    assert.equal(rm.env.status, 'waiting_confirmation');
    assert.equal(rm.env.data.policy.segments[0].rule, 'confirm: rm -rf');
    for (const disguise of ['\\rm -rf x', '/bin/rm -rf x', 'env rm -fr x', "sh -c 'rm -r -f x'", 'command rm -rf x']) {
      const d = await run({ command: disguise });
      assert.equal(d.env.status, 'waiting_confirmation', disguise);
    }
    const argv = await run({ argv: ['sh', '-c', 'rm -rf /'], shell: false });
    assert.equal(argv.env.error!.code, 'POLICY_DENIED', 'argv goes through the same policy');
  });

  it('commands inside $(…), backticks and here-documents are judged: hidden denials refuse the line, the common forms run (issue 8)', async () => {
    for (const cmd of ['echo $(rm -rf /)', 'echo `rm -rf /`', 'cat <<EOF\n$(rm -rf /)\nEOF', 'echo "$(touch hidden-touch.txt)"', 'ls &&']) {
      const r = await run({ command: cmd });
      assert.ok(r.env.error?.code === 'POLICY_DENIED' || r.env.status === 'waiting_confirmation', `${cmd}: ${r.text}`);
    }
    assert.equal(existsSync(ws('hidden-touch.txt')), false, 'a command inside $(…) waits for confirmation like any other');
    writeFileSync(ws('one.txt'), '');
    writeFileSync(ws('two.txt'), '');
    const loop = await run({ command: 'for f in $(ls *.txt); do echo "[$f]"; done' });
    assert.match(loop.env.data.output, /\[one\.txt\][\s\S]*\[two\.txt\]/, loop.text);
    const built = await run({ command: 'echo "built at $(date +%Y)"' });
    assert.match(built.env.data.output, /^built at \d{4}$/, built.text);
    const repo = ws('commit-here');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'a.txt'), 'a');
    const commit = await run({
      command: "git add a.txt && git commit -q -m \"$(cat <<'EOF'\nfix: keep the shell alive\n\nWhy: agents use this form.\nEOF\n)\" && git log -1 --format=%B",
      cwd: 'commit-here',
      env: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' },
    });
    assert.equal(commit.env.status, 'succeeded', commit.text);
    assert.match(commit.env.data.output, /^fix: keep the shell alive\n\nWhy: agents use this form\./, commit.text);
  });

  it('true && <denied> is refused before true runs', async () => {
    const r = await run({ command: 'echo ran > ran-first.txt && rm -rf /' });
    assert.equal(r.env.error!.code, 'POLICY_DENIED');
    assert.equal(existsSync(ws('ran-first.txt')), false, 'the first segment never ran');
  });

  it('a lone & is refused with a ready action that runs it as a tracked background task', async () => {
    const r = await run({ command: 'echo bg-ran > bg.txt &' });
    assert.equal(r.env.error!.code, 'POLICY_DENIED');
    const a = r.env.actions.find((x) => x.arguments.background === true);
    assert.ok(a, JSON.stringify(r.env.actions));
    assert.equal(a.arguments.command, 'echo bg-ran > bg.txt');
    const bg = await call(a.tool, a.arguments);
    assert.equal(bg.env.data.kind, 'background');
    await pollUntil('the background task to write', () => existsSync(ws('bg.txt')) && readFileSync(ws('bg.txt'), 'utf8') === 'bg-ran\n');
  });

  it('git push waits for confirmation and runs after it, once', async () => {
    const repo = ws('pushme');
    const remote = join(h.home, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    mkdirSync(repo);
    const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { env: GIT_ENV }).toString().trim();
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'f'), 'x\n');
    git('add', 'f');
    git('commit', '-q', '-m', 'first');
    git('remote', 'add', 'origin', remote);
    const head = git('rev-parse', 'HEAD');

    const ask = await run({ command: 'git push -q origin main', cwd: 'pushme', purpose: 'publish the fix' });
    assert.equal(ask.env.status, 'waiting_confirmation', ask.text);
    assert.equal(ask.env.hints.preferred_behavior, 'ask_confirm');
    assert.match(ask.env.data.confirmation.summary, /git push -q origin main/);
    assert.match(ask.env.data.confirmation.summary, /publish the fix/);
    assert.throws(() => execFileSync('git', ['--git-dir', remote, 'rev-parse', 'main'], { stdio: 'ignore' }), 'nothing pushed yet');

    const confirm = ask.env.actions[0]!;
    assert.equal(confirm.arguments.user_confirmed, true);
    assert.equal(confirm.arguments.idempotency_key, ask.env.data.confirmation.idempotency_key);
    const done = await call(confirm.tool, confirm.arguments);
    assert.equal(done.env.status, 'succeeded', done.text);
    assert.equal(done.env.data.exit_code, 0);
    assert.equal(done.env.data.execution_task_id, ask.env.data.execution_task_id, 'the confirmed call runs the task that asked');
    assert.equal(execFileSync('git', ['--git-dir', remote, 'rev-parse', 'main']).toString().trim(), head);

    const again = await call(confirm.tool, confirm.arguments);
    assert.equal(again.env.data.execution_task_id, done.env.data.execution_task_id, 'the same key returns the same task');
    assert.equal(audit().filter((l) => l.event === 'execute.run' && l.execution_task_id === done.env.data.execution_task_id).length, 1, 'ran once');
  });

  it('a confirmation is bound to the exact call and expires', async () => {
    const ask = await run({ command: 'touch confirmed.txt', purpose: 'p1' });
    assert.equal(ask.env.status, 'waiting_confirmation');
    const key = ask.env.data.confirmation.idempotency_key as string;
    const other = await run({ command: 'touch other.txt', purpose: 'p1', idempotency_key: key, user_confirmed: true });
    assert.equal(other.env.error!.code, 'IDEMPOTENCY_CONFLICT');
    const otherPurpose = await run({ command: 'touch confirmed.txt', purpose: 'p2', idempotency_key: key, user_confirmed: true });
    assert.equal(otherPurpose.env.error!.code, 'IDEMPOTENCY_CONFLICT');
    const otherCwd = await run({ command: 'touch confirmed.txt', purpose: 'p1', cwd: 'pushme', idempotency_key: key, user_confirmed: true });
    assert.equal(otherCwd.env.error!.code, 'IDEMPOTENCY_CONFLICT');

    const unasked = await run({ command: 'touch unasked.txt', user_confirmed: true, idempotency_key: 'fresh-key' });
    assert.equal(unasked.env.status, 'waiting_confirmation', 'user_confirmed without an asked confirmation only asks');
    assert.equal(existsSync(ws('unasked.txt')), false);

    await pollUntil('the confirmation to expire', () => Date.now() > (ask.env.data.confirmation.expires_at as number) + 50, 10_000, 100);
    const late = await call(ask.env.actions[0]!.tool, ask.env.actions[0]!.arguments);
    assert.equal(late.env.status, 'waiting_confirmation', late.text);
    assert.equal(late.env.data.confirmation.previous_expired, true);
    assert.equal(existsSync(ws('confirmed.txt')), false, 'an expired confirmation runs nothing');
    const now = await call(late.env.actions[0]!.tool, late.env.actions[0]!.arguments);
    assert.equal(now.env.status, 'succeeded', now.text);
    assert.equal(existsSync(ws('confirmed.txt')), true);
  });

  it('the audit line is written before the shell gets the command; without it nothing runs', async () => {
    const r = await run({ command: 'echo audited' });
    const id = r.env.data.execution_task_id as string;
    const line = audit().find((l) => l.event === 'execute.run' && l.execution_task_id === id);
    assert.ok(line, 'a run line for the task');
    assert.equal(line.command, 'echo audited');
    assert.equal(line.principal, 'p');

    renameSync(h.layout.auditLog, `${h.layout.auditLog}.saved`);
    mkdirSync(h.layout.auditLog); // the audit log cannot be opened for appending now
    try {
      const blocked = await run({ command: 'echo no > not-run.txt' });
      assert.equal(blocked.env.status, 'failed');
      assert.equal(blocked.env.error!.code, 'INTERNAL');
      assert.match(blocked.env.error!.message, /audit log/);
      assert.equal(existsSync(ws('not-run.txt')), false);
    } finally {
      rmSync(h.layout.auditLog, { recursive: true });
      renameSync(`${h.layout.auditLog}.saved`, h.layout.auditLog);
    }
    const back = await run({ command: 'echo yes > now-run.txt' });
    assert.equal(back.env.data.exit_code, 0);
    assert.ok(existsSync(ws('now-run.txt')));
  });

  it("a project's .holdfast.yaml narrows the rules and cannot widen them", async () => {
    writeFileSync(ws('.holdfast.yaml'), 'security:\n  commands:\n    deny: [curl]\n    default: confirm\n');
    try {
      const curl = await run({ command: 'curl --version' });
      assert.equal(curl.env.error!.code, 'POLICY_DENIED');
      const other = await run({ command: 'python3 -V' });
      assert.equal(other.env.status, 'waiting_confirmation', 'the stricter default applies');
      const ls = await run({ command: 'ls' });
      assert.equal(ls.env.status, 'succeeded', 'the read-only list still allows');
      writeFileSync(ws('.holdfast.yaml'), 'security:\n  commands:\n    allow: [sudo]\n');
      const widen = await run({ command: 'sudo true' });
      assert.equal(widen.env.error!.code, 'POLICY_DENIED');
    } finally {
      rmSync(ws('.holdfast.yaml'));
    }
  });
});
