import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CLI_MAIN, pollUntil, TestHome } from './_harness/home.js';
import { openSession, toolCaller } from './_harness/tools.js';

const TOOLS = ['workspace', 'session', 'execute', 'observe', 'read', 'edit', 'plan', 'progress', 'artifact'];

/** A running `holdfast observe …` with its output so far. */
interface Observer {
  child: ChildProcess;
  out: () => string;
  err: () => string;
}

function observe(h: TestHome, args: string[]): Observer {
  const child = spawn(process.execPath, [CLI_MAIN, 'observe', 'ws', ...args], { env: h.env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return { child, out: () => out, err: () => err };
}

/**
 * `holdfast observe` (issue 11): a read-only stream over the control socket. Started before a run
 * of calls with `restart-daemon` in the middle, the json stream shows every stored event exactly
 * once with contiguous sequences; activity snapshots ride along. The text layout under tmux (a real
 * terminal) has marks, verbs, indented facts and numbered output, in 24-bit colour with
 * COLORTERM=truecolor and none with NO_COLOR; piped, it has no escape codes.
 */
describe('holdfast observe (issue 11)', () => {
  const h = new TestHome();
  const observers: Observer[] = [];
  let call: ReturnType<typeof toolCaller>;
  let rs = '';
  before(async () => {
    await h.startDaemon();
    const c = h.client(60_000);
    call = toolCaller(c, 'p', TOOLS);
    rs = await openSession(c);
  });
  after(async () => {
    for (const o of observers) o.child.kill('SIGKILL');
    await h.cleanup();
  });

  it('json: every event exactly once, contiguous sequences, across restart-daemon', async () => {
    const o = observe(h, ['--format', 'json']);
    observers.push(o);
    const events = () => o.out().split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as { sequence: number; kind: string; tool: string | null; data: Record<string, unknown> });
    await pollUntil('the replayed session events', () => events().some((e) => e.kind === 'session.running'), 10_000);
    const run = (i: number, extra: Record<string, unknown> = {}) => call('execute', { remote_session_id: rs, command: `echo mark-${i}`, yield_time_ms: 30_000, ...extra });
    for (let i = 0; i < 5; i++) await run(i, i === 0 ? { activity: { intent: 'watch the stream', next: 'restart' } } : {});
    const restart = await h.cli(['restart-daemon']);
    assert.equal(restart.code, 0, restart.stderr);
    for (let i = 5; i < 10; i++) await run(i);
    await pollUntil('the last call in the stream', () => events().some((e) => e.data.target === 'echo mark-9'), 20_000);

    const seen = events();
    const seqs = seen.map((e) => e.sequence);
    assert.equal(seqs[0], 1, 'the history starts at the first event');
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), 'contiguous, each once, in order');
    const marks = seen.filter((e) => typeof e.data.target === 'string' && (e.data.target as string).startsWith('echo mark-')).map((e) => e.data.target);
    assert.deepEqual(marks, Array.from({ length: 10 }, (_, i) => `echo mark-${i}`));
    assert.ok(seen.some((e) => e.kind === 'daemon.stopped') && seen.filter((e) => e.kind === 'daemon.started').length === 2, 'the restart itself is in the stream');
    const withActivity = seen.find((e) => e.data.activity);
    assert.equal((withActivity!.data.activity as { intent: string; sequence: number }).intent, 'watch the stream');
    assert.equal((withActivity!.data.activity as { sequence: number }).sequence, withActivity!.sequence, 'the stored snapshot, with its event\'s sequence');
    assert.doesNotMatch(o.err(), /repeat/);
  });

  it('text: layout under tmux, 24-bit colour with COLORTERM=truecolor, none with NO_COLOR; piped without escapes', async () => {
    const tmux = (args: string[]): Promise<string> => h.tmux(args);
    const cmd = `${process.execPath} ${CLI_MAIN} observe ws --history 1`;
    await tmux(['new-session', '-d', '-x', '200', '-y', '50', '-s', 'colour', `env -u NO_COLOR COLORTERM=truecolor ${cmd}`]);
    await tmux(['new-session', '-d', '-x', '200', '-y', '50', '-s', 'nocolour', `env NO_COLOR=1 COLORTERM=truecolor ${cmd}`]);
    const piped = observe(h, ['--history', '1']);
    observers.push(piped);
    try {
      const replayed = /^[✓✗•◷?!~] /m;
      await pollUntil('both panes to show the replayed event', async () => replayed.test(await tmux(['capture-pane', '-p', '-t', 'colour'])) && replayed.test(await tmux(['capture-pane', '-p', '-t', 'nocolour'])), 10_000);
      await call('execute', { remote_session_id: rs, command: 'echo tmux-out; echo tmux-err >&2; false', purpose: 'show the layout', activity: { hypothesis: 'the layout holds' }, yield_time_ms: 30_000 });
      const pane = await pollUntil('the call in the pane', async () => {
        const p = await tmux(['capture-pane', '-p', '-t', 'colour']);
        return /│ tmux-err/.test(p) ? p : null;
      }, 10_000);
      const lines = pane.split('\n');
      const at = lines.findIndex((l) => l.startsWith('✗') || l.startsWith('✓ Ran echo tmux-out'));
      assert.ok(at > 1, pane);
      assert.match(lines[at - 2]!, /^» hypothesis: the layout holds$/, 'activity: one compact line before the call');
      assert.match(lines[at - 1]!, /^# show the layout$/, 'purpose: one line before the call');
      assert.match(lines[at]!, /^✓ Ran echo tmux-out; echo tmux-err >&2; false$/, 'mark, verb, target');
      assert.match(lines[at + 1]!, /^ {2}\S.* · exit 1 · /, 'facts indented two spaces: duration, exit code');
      assert.match(lines[at + 2]!, /^ {4}1 │ tmux-out$/, 'output indented four, numbered');
      const coloured = await tmux(['capture-pane', '-p', '-e', '-t', 'colour']);
      assert.match(coloured, /\x1b\[38;2;\d+;\d+;\d+m/, '24-bit colour with COLORTERM=truecolor');
      const plain = await tmux(['capture-pane', '-p', '-e', '-t', 'nocolour']);
      assert.ok(plain.includes('tmux-out'));
      assert.doesNotMatch(plain, /\x1b\[[0-9;]*m/, 'no colour with NO_COLOR');
      await pollUntil('the piped observer to see the call', () => piped.out().includes('tmux-out'), 10_000);
      assert.doesNotMatch(piped.out(), /\x1b/, 'piped: no escape codes');
      assert.match(piped.out(), /^✓ Ran echo tmux-out/m);
    } finally {
      await tmux(['kill-server']).catch(() => undefined);
    }
  });

  it('filters by tool, status, operation and path; refuses an unknown workspace and a bad --history', async () => {
    await call('edit', { remote_session_id: rs, edits: [{ operation: 'create', path: 'src/a.txt', content: 'a\n' }] });
    await call('read', { remote_session_id: rs, path: 'src/a.txt' });
    const failed = observe(h, ['--format', 'json', '--status', 'failed', '--tool', 'execute']);
    const onPath = observe(h, ['--format', 'json', '--path', 'src']);
    const op = observe(h, ['--format', 'json', '--operation', 'restart-never']);
    observers.push(failed, onPath, op);
    await pollUntil('the path filter to show the edit and the read', () => onPath.out().split('\n').filter(Boolean).length === 2, 10_000);
    const tools = onPath.out().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { tool: string }).tool);
    assert.deepEqual(tools, ['edit', 'read']);
    // A status filter on execute: the call refused by the policy-free error path (a bad session id).
    await call('execute', { remote_session_id: 'rs_01ARZ3NDEKTSV4RRFFQ69G5FAV', command: 'true' });
    await pollUntil('the failed call', () => failed.out().includes('SESSION_NOT_FOUND'), 10_000);
    assert.ok(failed.out().split('\n').filter(Boolean).every((l) => (JSON.parse(l) as { status: string }).status === 'failed'));
    assert.equal(op.out(), '', 'an operation nothing did shows nothing');
    const unknown = await h.cli(['observe', 'nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /WORKSPACE_NOT_FOUND/);
    const bad = await h.cli(['observe', 'ws', '--history', '101']);
    assert.equal(bad.code, 2);
  });
});
