import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SandboxSpec } from '@holdfast/shared/protocol';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapArgs, findProgram, landlockArgs, programFiles, sandboxLaunch, withVisibleFiles } from './sandbox-launch.js';

const spec: SandboxSpec = {
  mode: 'bwrap',
  network: 'off',
  program: '/usr/bin/bwrap',
  writable: ['/home/u/.holdfast/ws', '/home/u/.npm'],
  hidden: ['/home/u/.holdfast'],
  visible: ['/home/u/.holdfast/sessions/rs_1/shell'],
  readOnly: ['/home/u/.holdfast/ws/.holdfast.yaml'],
};

describe('sandbox argv (issue 17)', () => {
  it('bwrap: / read-only, private /tmp, own pid and network namespaces, never --new-session', () => {
    const a = bwrapArgs(spec, '/home/u/.holdfast/ws');
    assert.deepEqual(a.slice(0, 3), ['--die-with-parent', '--unshare-pid', '--unshare-net']);
    assert.ok(!a.includes('--new-session'), 'job control needs the PTY as controlling terminal');
    const at = (...xs: string[]): number => a.findIndex((_, i) => xs.every((x, j) => a[i + j] === x));
    assert.ok(at('--ro-bind', '/', '/') >= 0 && at('--tmpfs', '/tmp') > at('--ro-bind', '/', '/'));
    // Shallowest first: the hidden home, then the workspace bound back into it, then what sits inside.
    const hide = at('--tmpfs', '/home/u/.holdfast');
    const npm = at('--bind-try', '/home/u/.npm', '/home/u/.npm');
    const ws = at('--bind-try', '/home/u/.holdfast/ws', '/home/u/.holdfast/ws');
    const cfg = at('--ro-bind-try', '/home/u/.holdfast/ws/.holdfast.yaml', '/home/u/.holdfast/ws/.holdfast.yaml');
    const rc = at('--ro-bind-try', '/home/u/.holdfast/sessions/rs_1/shell', '/home/u/.holdfast/sessions/rs_1/shell');
    assert.ok(at('--tmpfs', '/tmp') < hide && hide < ws && ws < cfg && npm < hide && hide < rc, a.join(' '));
    assert.ok(at('--remount-ro', '/home/u/.holdfast') > rc);
    assert.deepEqual(a.slice(-3), ['--chdir', '/home/u/.holdfast/ws', '--']);
    assert.ok(!bwrapArgs({ ...spec, network: 'on' }, '/').includes('--unshare-net'));
  });

  it('landlock: writable paths, /tmp and terminal devices, TCP off', () => {
    const a = landlockArgs({ ...spec, mode: 'landlock' });
    const rw = a.flatMap((x, i) => (x === '--rw' ? [a[i + 1]] : []));
    assert.deepEqual(rw.slice(0, 3), ['/home/u/.holdfast/ws', '/home/u/.npm', '/tmp']);
    assert.ok(rw.includes('/dev/null') && rw.includes('/dev/pts') && rw.includes('/dev/tty'));
    assert.ok(a.includes('--net-off'));
    assert.equal(a[a.length - 1], '--');
  });

  it('wraps a program, or runs it as given without a sandbox', () => {
    assert.deepEqual(sandboxLaunch(undefined, '/', 'bash', ['-i']), { file: 'bash', args: ['-i'] });
    const l = sandboxLaunch({ ...spec, mode: 'landlock', program: '/x/holdfast-landlock' }, '/', 'bash', ['-i']);
    assert.equal(l.file, '/x/holdfast-landlock');
    assert.deepEqual(l.args.slice(-3), ['--', 'bash', '-i']);
  });

  it('finds programs the way execvp would', () => {
    assert.equal(findProgram('sh', '/nonexistent:/bin:/usr/bin', '/'), '/bin/sh');
    assert.equal(findProgram('no-such-program-hf', '/bin:/usr/bin', '/'), null);
    assert.equal(findProgram('/bin/sh', undefined, '/'), '/bin/sh');
  });

  it('keeps an upstream server’s program, its #! interpreter through PATH and its script visible where bwrap hides them', () => {
    const d = mkdtempSync(join(tmpdir(), 'hf-progfiles-'));
    try {
      mkdirSync(join(d, 'bin'));
      writeFileSync(join(d, 'real-node'), '', { mode: 0o755 });
      symlinkSync(join(d, 'real-node'), join(d, 'bin', 'node'));
      writeFileSync(join(d, 'server'), '#!/usr/bin/env -S node --no-warnings\n', { mode: 0o755 });
      writeFileSync(join(d, 'main.js'), '');
      const path = `${join(d, 'bin')}:/usr/bin:/bin`;
      const files = programFiles('node', [join(d, 'main.js'), '--flag'], path, '/');
      assert.deepEqual(files, [join(d, 'bin', 'node'), join(d, 'real-node'), join(d, 'main.js')]);
      assert.deepEqual(programFiles(join(d, 'server'), [], path, '/'), [join(d, 'server'), join(d, 'bin', 'node'), join(d, 'real-node')]);
      const s = withVisibleFiles({ ...spec, writable: [...spec.writable, join(d, 'bin')] }, [...files, '/usr/bin/env', '/home/u/.holdfast/x.js']);
      assert.deepEqual(s.visible.slice(1), [join(d, 'real-node'), join(d, 'main.js'), '/home/u/.holdfast/x.js'], 'under /tmp or a hidden folder, not under a writable one');
      assert.equal(withVisibleFiles({ ...spec, mode: 'landlock' }, files).visible.length, 1, 'Landlock hides nothing');
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('with a seccomp filter: bwrap reads it from fd 9 that a /bin/sh in front opens; the Landlock helper gets the file', () => {
    const l = sandboxLaunch({ ...spec, seccomp: '/s/f.bpf' }, '/w', 'bash', ['-i']);
    assert.equal(l.file, '/bin/sh');
    assert.deepEqual(l.args.slice(2, 5), ['holdfast-seccomp', '/s/f.bpf', '/usr/bin/bwrap']);
    const at = l.args.indexOf('--seccomp');
    assert.equal(l.args[at + 1], '9');
    assert.match(l.args[1]!, /^exec 9<"\$1" \|\| exit 125; shift; exec "\$@"$/);
    assert.deepEqual(l.args.slice(-3), ['--', 'bash', '-i']);
    const ll = landlockArgs({ ...spec, mode: 'landlock', seccomp: '/s/f.bpf' });
    assert.deepEqual(ll.slice(-3), ['--seccomp', '/s/f.bpf', '--']);
  });
});
