/**
 * A classic-BPF seccomp filter that makes `ioctl(fd, TIOCSTI, …)` fail with `EPERM` and allows
 * every other system call (issue 17, docs/sandbox.md "TIOCSTI"). TIOCSTI pushes bytes into a
 * terminal's input queue: a process in the session could type a command that the shell runs after
 * the prompt, never judged by the command policy. Kernels ≥ 6.2 can turn it off for everyone
 * (`sysctl dev.tty.legacy_tiocsti=0`); this filter does it for the sandbox whatever the sysctl.
 *
 * The program is the raw `struct sock_filter[]` (8 bytes each, little-endian: u16 code, u8 jt,
 * u8 jf, u32 k) that `bwrap --seccomp FD` and `holdfast-landlock --seccomp FILE` load. It checks
 * `seccomp_data.arch` (offset 4), then the syscall number (offset 0), then the low 32 bits of
 * args[1] (offset 24: ioctl's request). x86_64 covers its native, x32 and i386 (compat) calls.
 * Little-endian architectures only (the instructions and offsets are written for them).
 */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JA = 0x05;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
/** TIOCSTI on every Linux architecture Node runs on (asm-generic/ioctls.h). */
export const TIOCSTI = 0x5412;

/** Per Node architecture: the audit arches the kernel may report, and ioctl's number for each. */
const ARCHES: Record<string, { arch: number; nrs: number[] }[]> = {
  x64: [
    { arch: 0xc000003e, nrs: [16, 0x40000000 + 16, 0x40000000 + 514] }, // x86_64, x32
    { arch: 0x40000003, nrs: [54] }, // i386 compat
  ],
  arm64: [
    { arch: 0xc00000b7, nrs: [29] },
    { arch: 0x40000028, nrs: [54] }, // arm (compat)
  ],
  riscv64: [{ arch: 0xc00000f3, nrs: [29] }],
  ppc64: [{ arch: 0xc0000015, nrs: [54] }], // little-endian (Node's ppc64 is ppc64le)
  loong64: [{ arch: 0xc0000102, nrs: [29] }],
};

/** The filter program for `arch` (a `process.arch` value), or null where holdfast has no table for it. */
export function tiocstiFilter(arch: string = process.arch): Buffer | null {
  const blocks = ARCHES[arch];
  if (!blocks) return null;
  const ins: [number, number, number, number][] = [[LD_W_ABS, 0, 0, 4]];
  // Each block: jeq arch (else skip the block), ld nr, jeq nr → CHECK for each nr, ja ALLOW.
  const blockLen = (b: { nrs: number[] }): number => 1 + 1 + b.nrs.length + 1;
  const total = blocks.reduce((n, b) => n + blockLen(b), 1);
  // Layout after the blocks: [total] ret ALLOW, [total+1] ld args[1], jeq TIOCSTI, ret ALLOW, ret EPERM.
  const allowAt = total;
  const checkAt = total + 1;
  for (const b of blocks) {
    const start = ins.length;
    ins.push([JEQ_K, 0, blockLen(b) - 1, b.arch]);
    ins.push([LD_W_ABS, 0, 0, 0]);
    b.nrs.forEach((nr) => {
      const at = ins.length;
      ins.push([JEQ_K, checkAt - at - 1, 0, nr]);
    });
    const at = ins.length;
    ins.push([JA, 0, 0, allowAt - at - 1]);
    if (ins.length - start !== blockLen(b)) throw new Error('seccomp block length');
  }
  ins.push([RET_K, 0, 0, RET_ALLOW]);
  ins.push([LD_W_ABS, 0, 0, 24]);
  ins.push([JEQ_K, 1, 0, TIOCSTI]);
  ins.push([RET_K, 0, 0, RET_ALLOW]);
  ins.push([RET_K, 0, 0, RET_EPERM]);
  const buf = Buffer.alloc(ins.length * 8);
  ins.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** True when holdfast has a TIOCSTI filter for `arch` (a `process.arch` value). */
export function tiocstiFilterSupported(arch: string = process.arch): boolean {
  return tiocstiFilter(arch) !== null;
}
