import { accessSync, closeSync, constants as fsConstants, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { readProcStat, type SandboxSpec } from '@holdfast/shared/protocol';

/**
 * The argv that runs a program inside the session's sandbox (issue 17, docs/sandbox.md). The PTY
 * shell and every background task go through {@link sandboxLaunch}; with no sandbox the program
 * runs as given. Policy (which mode, which paths) is the daemon's; this file only spells it out:
 *
 * - `bwrap`: a new mount and pid namespace (and network namespace with `network: off`): `/`
 *   read-only, a fresh `/dev` and `/proc`, a private `/tmp`, the writable paths bound read-write,
 *   the project config bound read-only over itself, holdfast's own folders hidden behind an empty
 *   read-only tmpfs (the session's rc files stay visible). Never `--new-session`: the shell must
 *   keep the PTY as its controlling terminal for job control.
 * - `landlock`: the helper (guardian/native/landlock-exec.c) denies every write outside the
 *   writable paths, the shared `/tmp` and the terminal devices, and TCP with `network: off`,
 *   then execs the program (same pid).
 */
export interface Launch {
  file: string;
  args: string[];
}

/** Devices a confined shell must still write to (Landlock checks writes to device files too). */
export const LANDLOCK_DEVICE_PATHS = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty', '/dev/ptmx', '/dev/pts', '/dev/shm'] as const;

/** The shared temporary folder Landlock leaves writable (it cannot give a private /tmp, as bwrap does). */
export const LANDLOCK_TEMP_PATHS = ['/tmp'] as const;

const depth = (p: string): number => p.split('/').filter(Boolean).length;

/**
 * The bwrap options for `s`, ending with `--` (the program follows). Mounts are made shallowest
 * first, so the deepest one decides a path: a workspace inside a hidden folder is bound back into
 * it, a hidden folder inside a writable one (holdfast's home in a workspace `~`) stays hidden.
 */
export function bwrapArgs(s: SandboxSpec, cwd: string): string[] {
  const a = ['--die-with-parent', '--unshare-pid'];
  if (s.network === 'off') a.push('--unshare-net');
  if (s.seccomp) a.push('--seccomp', String(SECCOMP_FD));
  // --tmpfs /tmp first: binds below /tmp are created inside the fresh tmpfs.
  a.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  const mounts: { path: string; args: string[] }[] = [
    ...s.writable.map((w) => ({ path: w, args: ['--bind-try', w, w] })),
    ...s.hidden.map((h) => ({ path: h, args: ['--tmpfs', h] })),
    ...s.readOnly.map((f) => ({ path: f, args: ['--ro-bind-try', f, f] })),
    ...s.visible.map((v) => ({ path: v, args: ['--ro-bind-try', v, v] })),
  ];
  mounts.sort((x, y) => depth(x.path) - depth(y.path));
  for (const m of mounts) a.push(...m.args);
  for (const h of s.hidden) a.push('--remount-ro', h);
  a.push('--chdir', cwd, '--');
  return a;
}

/** The Landlock helper's options for `s`, ending with `--` (the program follows). */
export function landlockArgs(s: SandboxSpec): string[] {
  const a: string[] = [];
  for (const w of [...s.writable, ...LANDLOCK_TEMP_PATHS, ...LANDLOCK_DEVICE_PATHS]) a.push('--rw', w);
  if (s.network === 'off') a.push('--net-off');
  if (s.seccomp) a.push('--seccomp', s.seccomp);
  a.push('--');
  return a;
}

/** The descriptor bwrap reads the seccomp filter from (opened by a `sh` in front of it). */
export const SECCOMP_FD = 9;

/**
 * `file args` as run inside `s` (unchanged without a sandbox). With `s.seccomp` under bwrap, a
 * `/bin/sh` opens the filter file as fd {@link SECCOMP_FD} and execs bwrap (same pid; node-pty
 * cannot hand a child extra descriptors); exit 125 when the file cannot be opened.
 */
export function sandboxLaunch(s: SandboxSpec | undefined, cwd: string, file: string, args: readonly string[]): Launch {
  if (!s) return { file, args: [...args] };
  const opts = s.mode === 'bwrap' ? bwrapArgs(s, cwd) : landlockArgs(s);
  if (s.mode === 'bwrap' && s.seccomp) {
    return { file: '/bin/sh', args: ['-c', `exec ${SECCOMP_FD}<"$1" || exit 125; shift; exec "$@"`, 'holdfast-seccomp', s.seccomp, s.program, ...opts, file, ...args] };
  }
  return { file: s.program, args: [...opts, file, ...args] };
}

/** Environment a sandboxed program sees in addition to the session's (`HOLDFAST_SANDBOX=<mode>`). */
export function sandboxEnv(s: SandboxSpec | undefined): Record<string, string> {
  return s ? { HOLDFAST_SANDBOX: s.mode, HOLDFAST_SANDBOX_NETWORK: s.network } : {};
}

function comm(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'latin1').trim();
  } catch {
    return null;
  }
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * The program bwrap runs for the process `pid` spawned (bwrap → its pid-namespace init → the
 * program), seen from outside: the oldest non-bwrap descendant. Returns null while it does not
 * exist yet, `pid` itself when `pid` is not bwrap (Landlock, no sandbox).
 */
export function innermostPid(pid: number): number | null {
  let at = pid;
  for (let depth = 0; depth < 4; depth++) {
    const name = comm(at);
    if (name === null) return null;
    if (name !== 'bwrap') return at;
    const kids = children(at)
      .map((k) => readProcStat(k))
      .filter((k) => k !== null && k.state !== 'Z')
      .sort((x, y) => Number(x!.startTime) - Number(y!.startTime) || x!.pid - y!.pid);
    if (kids.length === 0) return null;
    at = kids[0]!.pid;
  }
  return null;
}

/**
 * Where `program` would be found by execvp with `PATH` (relative names with a `/` against `cwd`),
 * or null when it is missing or not executable.
 */
export function findProgram(program: string, path: string | undefined, cwd: string): string | null {
  const candidates = program.includes('/') ? [isAbsolute(program) ? program : join(cwd, program)] : (path ?? '/usr/bin:/bin').split(':').filter(Boolean).map((d) => join(d, program));
  for (const c of candidates) {
    try {
      accessSync(c, fsConstants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // not here
    }
  }
  return null;
}

const inside = (root: string, p: string): boolean => p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** The interpreter named by `file`'s `#!` line (`#!/usr/bin/env node` → `node` through PATH), or null. */
function shebangInterpreter(file: string, path: string | undefined, cwd: string): string | null {
  let head = '';
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(256);
      head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  if (!head.startsWith('#!')) return null;
  const words = head.slice(2).split('\n')[0]!.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  if (basename(words[0]!) === 'env') {
    const name = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('='));
    return name ? findProgram(name, path, cwd) : null;
  }
  return words[0]!;
}

/**
 * The files a sandboxed process needs to see to start `command args` (issue 13/17, docs/sandbox.md,
 * "Upstream MCP servers"): the program as execvp finds it through `PATH`, its real path when that
 * is a symlink, the interpreter of its `#!` line (and that one's real path), and every argument
 * that names an existing regular file (the script a `node server.js` runs). Absolute paths;
 * duplicates removed. A bwrap sandbox hides `/tmp` and holdfast's folders: a Node installed under
 * `/tmp` (CI's Node 22) would otherwise be "No such file or directory" inside (exit 127).
 */
export function programFiles(command: string, args: readonly string[], path: string | undefined, cwd: string): string[] {
  const out: string[] = [];
  const add = (p: string | null): void => {
    if (p === null) return;
    for (const q of [p, realOrNull(p)]) if (q !== null && !out.includes(q)) out.push(q);
  };
  const program = findProgram(command, path, cwd);
  add(program);
  if (program) {
    const interp = shebangInterpreter(program, path, cwd);
    if (interp) add(interp);
  }
  for (const a of args.slice(0, 8)) {
    if (a.startsWith('-') || a.length === 0) continue;
    const p = isAbsolute(a) ? a : resolve(cwd, a);
    try {
      if (statSync(p).isFile()) add(p);
    } catch {
      // not a file
    }
  }
  return out;
}

/**
 * `s` with `files` kept visible read-only (bwrap `--ro-bind-try`) where the sandbox would hide
 * them: beneath `/tmp` (private inside) or a hidden folder, and not beneath a writable path (those
 * stay as they are). Landlock restricts writes only, so its spec is returned unchanged.
 */
export function withVisibleFiles(s: SandboxSpec, files: readonly string[]): SandboxSpec {
  if (s.mode !== 'bwrap') return s;
  const hiddenRoots = ['/tmp', ...s.hidden];
  const extra = files.filter((f) => hiddenRoots.some((h) => inside(h, f)) && !s.writable.some((w) => inside(w, f)) && !s.visible.includes(f));
  return extra.length === 0 ? s : { ...s, visible: [...s.visible, ...extra] };
}
