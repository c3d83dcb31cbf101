import { existsSync, readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';

describe('holdfast CLI errors when the daemon is down', () => {
  const h = new TestHome();
  after(() => h.cleanup());

  it('list with no daemon: one line, non-zero', async () => {
    const r = await h.cli(['list']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr.trim(), /^holdfast: DAEMON_UNAVAILABLE: .*holdfast daemon run/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('a bad flag: usage error exit 2', async () => {
    const r = await h.cli(['list', '--bogus']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option '--bogus'/);
  });

  it('bad arguments are usage errors (exit 2) before any daemon is contacted', async () => {
    const kill = await h.cli(['kill']);
    assert.equal(kill.code, 2);
    assert.match(kill.stderr, /kill needs a session id or --all/);
    const prune = await h.cli(['prune', '--idle-seconds', 'abc']);
    assert.equal(prune.code, 2);
    assert.match(prune.stderr, /--idle-seconds needs a whole number/);
    const attach = await h.cli(['attach', 'x', '--from', '-1']);
    assert.equal(attach.code, 2);
  });
});

describe('holdfast doctor and CLI errors with a daemon', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('doctor reports versions, socket path length, DB integrity, rows vs live guardians and orphans', async () => {
    await h.client().call('session.open', { principal: 'p', workspace: 'ws' });
    const r = await h.cli(['doctor', '--json']);
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; ok: boolean; detail: string; data?: Record<string, unknown> }[] };
    const by = new Map(out.checks.map((c) => [c.name, c]));
    assert.ok(by.get('versions')!.detail.includes(`node ${process.version}`), by.get('versions')!.detail);
    assert.equal(typeof by.get('socket path')!.data!.longest_socket_bytes, 'number');
    assert.equal(by.get('database')!.data!.integrity, 'ok');
    assert.equal(by.get('sessions')!.data!.live_rows, 1);
    assert.equal(by.get('sessions')!.data!.live_guardians, 1);
    assert.deepEqual(by.get('orphans')!.data!.orphans, []);
    assert.equal(by.get('node-pty')!.ok, true, by.get('node-pty')!.detail);
    // Whether TIOCSTI can push input into a session's terminal: the kernel switch or the sandbox's filter.
    const tiocsti = by.get('tiocsti')!;
    assert.ok(tiocsti, r.stdout);
    assert.equal(tiocsti.data!.seccomp_filter, true);
    const sysctl = existsSync('/proc/sys/dev/tty/legacy_tiocsti') ? readFileSync('/proc/sys/dev/tty/legacy_tiocsti', 'utf8').trim() : null;
    assert.equal(tiocsti.data!.legacy_tiocsti, sysctl);
    assert.match(tiocsti.detail, sysctl === '0' ? /blocked by the kernel/ : /sandbox mode is off: unsandboxed sessions are not protected/);
    const text = await h.cli(['doctor']);
    assert.match(text.stdout, /^ok {3}versions: /m);
  });

  it('a bad session id: one line, non-zero', async () => {
    const r = await h.cli(['kill', 'rs_01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    assert.equal(r.code, 1);
    assert.match(r.stderr.trim(), /^holdfast: SESSION_NOT_FOUND: /);
    const r2 = await h.cli(['attach', 'nope']);
    assert.equal(r2.code, 1);
    assert.match(r2.stderr.trim(), /SESSION_NOT_FOUND/);
  });

  it('list --json shows the session', async () => {
    const r = await h.cli(['list', '--json']);
    assert.equal(r.code, 0);
    const sessions = JSON.parse(r.stdout) as { principal: string; state: string }[];
    assert.ok(sessions.some((s) => s.principal === 'p' && s.state === 'running'));
  });
});
