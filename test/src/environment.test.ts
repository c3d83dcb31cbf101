import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newId } from '@holdfast/shared/ids';
import { pollUntil, processTable, TestHome } from './_harness/home.js';
import { openSession, toolCaller } from './_harness/tools.js';

const HANG = 'sleep 47.25';

/**
 * environment and environment_read (issue 12): a `python3` on PATH that hangs on `--version` does
 * not hold the reading past its deadline (it is reported timed out and its process is gone); a
 * second reading within 60 s comes from the cache; a tool that appears on PATH shows in
 * `compare`; only variable names are kept; read-only principals may read.
 */
describe('environment readings and snapshots (issue 12)', () => {
  const h = new TestHome();
  const fakeBin = join(h.home, 'fake-bin');
  // A link outside the workspace to a folder the project planted, and a folder anyone may write.
  const linkedBin = join(h.home, 'linked-bin');
  const openBin = join(h.home, 'open-bin');
  const ran = join(h.home, 'ran');
  const plant = (dir: string, name: string, tag: string): void => {
    writeFileSync(join(dir, name), `#!/bin/sh\necho ${tag} >> ${ran}\necho "${name} 9.9.9"\n`);
    chmodSync(join(dir, name), 0o755);
  };
  let call: ReturnType<typeof toolCaller>;
  let readOnly: ReturnType<typeof toolCaller>;
  let rs = '';

  before(async () => {
    mkdirSync(fakeBin, { recursive: true });
    writeFileSync(join(fakeBin, 'python3'), `#!/bin/sh\nexec ${HANG}\n`);
    chmodSync(join(fakeBin, 'python3'), 0o755);
    const planted = join(h.workspace, 'node_modules', '.bin');
    mkdirSync(planted, { recursive: true });
    plant(planted, 'make', 'planted-make');
    symlinkSync(planted, linkedBin);
    mkdirSync(openBin);
    chmodSync(openBin, 0o777);
    plant(openBin, 'rustc', 'open-rustc');
    // A trusted wrapper that is a bash script: BASH_ENV from the session must not reach it.
    writeFileSync(join(fakeBin, 'cmake'), '#!/bin/bash\necho "cmake version 3.99.1"\n');
    chmodSync(join(fakeBin, 'cmake'), 0o755);
    writeFileSync(join(h.home, 'bash-env.sh'), `echo bash-env >> ${ran}\n`);
    await h.startDaemon({
      PATH: `${fakeBin}:${linkedBin}:${openBin}:${process.env.PATH ?? ''}`,
      HF_SECRET_VALUE_CANARY: 'never-kept-canary-value',
      BASH_ENV: join(h.home, 'bash-env.sh'),
    });
    const c = h.client();
    call = toolCaller(c, 'p', ['workspace', 'session', 'environment', 'environment_read']);
    readOnly = toolCaller(c, 'p', ['workspace', 'session', 'read', 'observe', 'runtime_read', 'environment_read']);
    rs = await openSession(c, 'p');
  });
  after(() => h.cleanup());

  it('a hanging python3 --version is cut off: the reading returns within 6 s with it marked timed out', async () => {
    const started = Date.now();
    const r = await readOnly('environment_read', { view: 'current', remote_session_id: rs });
    const took = Date.now() - started;
    assert.equal(r.isError, false, r.text);
    assert.ok(took <= 6000, `took ${took} ms`);
    const d = r.env.data as { cached: boolean; toolchains: Record<string, { status: string; version?: string }>; path: string[]; env_names: string[]; os: { arch: string }; cpu: { count: number }; disk: { free_bytes: number } };
    assert.equal(d.toolchains.python3!.status, 'timed_out');
    assert.equal(d.toolchains.node!.status, 'ok');
    assert.match(d.toolchains.node!.version!, /^\d+\.\d+\.\d+/);
    assert.equal(d.path[0], fakeBin);
    assert.ok(d.env_names.includes('HF_SECRET_VALUE_CANARY'), 'variable names are listed');
    assert.doesNotMatch(JSON.stringify(r.env.data), /never-kept-canary-value/, '… never their values');
    assert.ok(d.cpu.count >= 1 && d.disk.free_bytes > 0 && d.os.arch.length > 0);
    // SIGKILL went to its process group before the answer; the kernel ends it when it next runs.
    await pollUntil('the hanging probe to be gone (killed)', () => !processTable().some((p) => p.cmd === HANG), 5000, 25);
    assert.match(r.text, /python3 \(timed out\)/);

    const again = await readOnly('environment_read', { view: 'current', remote_session_id: rs });
    assert.equal((again.env.data as { cached: boolean }).cached, true, 'the second reading within 60 s is cached');
  });

  it('compare shows a toolchain that appeared on PATH since a snapshot; snapshots are listed and refused when unknown', async () => {
    rmSync(join(fakeBin, 'python3')); // fresh readings need not wait for the hanging one
    const saved = await call('environment', { remote_session_id: rs, label: 'before go' });
    assert.equal(saved.isError, false, saved.text);
    const id = (saved.env.data as { snapshot_id: string }).snapshot_id;
    assert.match(id, /^env_/);
    writeFileSync(join(fakeBin, 'go'), '#!/bin/sh\necho "go version go1.99.1 linux/amd64"\n');
    chmodSync(join(fakeBin, 'go'), 0o755);
    const cmp = await call('environment_read', { view: 'compare', remote_session_id: rs, snapshot_id: id });
    const diff = cmp.env.data as { added: { key: string; to: string }[]; removed: unknown[]; changed: unknown[] };
    assert.deepEqual(diff.added.find((c) => c.key === 'toolchains.go'), { key: 'toolchains.go', to: '1.99.1' }, cmp.text);
    assert.match(cmp.text, /\+ toolchains\.go = 1\.99\.1/);

    const later = await call('environment', { remote_session_id: rs });
    const two = await call('environment_read', { view: 'compare', remote_session_id: rs, snapshot_id: id, against: (later.env.data as { snapshot_id: string }).snapshot_id });
    assert.ok((two.env.data as { added: { key: string }[] }).added.some((c) => c.key === 'toolchains.go'));

    const list = await call('environment_read', { view: 'snapshot', remote_session_id: rs });
    assert.equal((list.env.data as { snapshots: unknown[] }).snapshots.length, 2);
    const one = await call('environment_read', { view: 'snapshot', remote_session_id: rs, snapshot_id: id });
    assert.equal((one.env.data as { label: string }).label, 'before go');
    const missing = await call('environment_read', { view: 'snapshot', remote_session_id: rs, snapshot_id: newId('environmentSnapshot') });
    assert.equal(missing.env.error?.code, 'SNAPSHOT_NOT_FOUND');
    const foreign = await toolCaller(h.client(), 'q', ['workspace', 'session', 'environment_read'])('environment_read', { view: 'snapshot', remote_session_id: rs, snapshot_id: id });
    assert.equal(foreign.env.error?.code, 'SESSION_NOT_FOUND', 'another principal cannot see the session');
  });

  it('probes run trusted programs only, with a cleaned environment: no planted node_modules/.bin through a link, no world-writable folder, no BASH_ENV', async () => {
    const r = await call('environment', { remote_session_id: rs });
    assert.equal(r.isError, false, r.text);
    const read = await call('environment_read', { view: 'snapshot', remote_session_id: rs, snapshot_id: (r.env.data as { snapshot_id: string }).snapshot_id });
    const t = (read.env.data as { reading?: { toolchains: Record<string, { status: string; version?: string; path?: string }> }; toolchains?: Record<string, { status: string; version?: string; path?: string }> });
    const tc = t.reading?.toolchains ?? t.toolchains!;
    assert.deepEqual([tc.make!.status, tc.make!.path], ['skipped', join(linkedBin, 'make')], JSON.stringify(tc.make));
    assert.deepEqual([tc.rustc!.status, tc.rustc!.path], ['skipped', join(openBin, 'rustc')], JSON.stringify(tc.rustc));
    assert.equal(tc.cmake!.version, '3.99.1', JSON.stringify(tc.cmake));
    assert.equal(existsSync(ran), false, 'neither a planted program nor BASH_ENV ran');
  });

  it('saving a snapshot is not allowed to a read-only principal', async () => {
    const r = await readOnly('environment', { remote_session_id: rs });
    assert.equal(r.env.error?.code, 'TOOL_NOT_ALLOWED');
  });
});
