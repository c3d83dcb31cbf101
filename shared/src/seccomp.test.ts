import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TIOCSTI, tiocstiFilter } from './seccomp.js';

/** Runs the classic-BPF program the way the kernel would, for one syscall (the subset it uses). */
function run(prog: Buffer, data: { arch: number; nr: number; arg1: number }): number {
  let a = 0;
  for (let pc = 0; pc * 8 < prog.length; pc++) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) a = k === 0 ? data.nr : k === 4 ? data.arch : k === 24 ? data.arg1 : 0;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x05) pc += k;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected instruction ${code}`);
  }
  throw new Error('fell off the end');
}

describe('TIOCSTI seccomp filter (issue 17)', () => {
  const EPERM = 0x00050001;
  const ALLOW = 0x7fff0000;
  it('x86_64: ioctl(TIOCSTI) fails with EPERM (native, x32, i386); other ioctls and syscalls pass', () => {
    const p = tiocstiFilter('x64')!;
    const X86_64 = 0xc000003e;
    assert.equal(run(p, { arch: X86_64, nr: 16, arg1: TIOCSTI }), EPERM);
    assert.equal(run(p, { arch: X86_64, nr: 0x40000000 + 514, arg1: TIOCSTI }), EPERM);
    assert.equal(run(p, { arch: 0x40000003, nr: 54, arg1: TIOCSTI }), EPERM);
    assert.equal(run(p, { arch: X86_64, nr: 16, arg1: 0x5413 }), ALLOW, 'TIOCGWINSZ');
    assert.equal(run(p, { arch: X86_64, nr: 1, arg1: TIOCSTI }), ALLOW, 'write with the same number as an argument');
    assert.equal(run(p, { arch: 0x40000003, nr: 16, arg1: TIOCSTI }), ALLOW, 'i386 syscall 16 is not ioctl');
  });
  it('arm64 too; no table for other architectures', () => {
    assert.equal(run(tiocstiFilter('arm64')!, { arch: 0xc00000b7, nr: 29, arg1: TIOCSTI }), EPERM);
    assert.equal(tiocstiFilter('mips'), null);
  });
});
