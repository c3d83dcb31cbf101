import { spawn } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { EnvironmentLimits } from '@holdfast/shared/constants';

/** How one toolchain's version is asked for (issue 12: the toolchains found on PATH). */
interface ToolProbe {
  name: string;
  /** Program names tried in order on PATH. */
  programs: string[];
  args: string[];
}

/** The toolchains a reading looks for, in display order. */
export const TOOL_PROBES: readonly ToolProbe[] = [
  { name: 'node', programs: ['node'], args: ['--version'] },
  { name: 'npm', programs: ['npm'], args: ['--version'] },
  { name: 'pnpm', programs: ['pnpm'], args: ['--version'] },
  { name: 'yarn', programs: ['yarn'], args: ['--version'] },
  { name: 'python3', programs: ['python3'], args: ['--version'] },
  { name: 'pip', programs: ['pip', 'pip3'], args: ['--version'] },
  { name: 'uv', programs: ['uv'], args: ['--version'] },
  { name: 'go', programs: ['go'], args: ['version'] },
  { name: 'rustc', programs: ['rustc'], args: ['--version'] },
  { name: 'cargo', programs: ['cargo'], args: ['--version'] },
  { name: 'java', programs: ['java'], args: ['-version'] },
  { name: 'gcc', programs: ['gcc'], args: ['--version'] },
  { name: 'clang', programs: ['clang'], args: ['--version'] },
  { name: 'make', programs: ['make'], args: ['--version'] },
  { name: 'cmake', programs: ['cmake'], args: ['--version'] },
  { name: 'git', programs: ['git'], args: ['--version'] },
  { name: 'docker', programs: ['docker'], args: ['--version'] },
  { name: 'podman', programs: ['podman'], args: ['--version'] },
];

/**
 * What one probe found. `missing`: not on PATH; `skipped`: the first one on PATH is in an untrusted
 * place ({@link untrustedDir}: never run by the daemon, a project could have planted it);
 * `timed_out`: no answer before the reading's deadline (its process group was killed); `failed`:
 * it exited non-zero or printed no version.
 */
export interface ToolchainFact {
  status: 'ok' | 'missing' | 'skipped' | 'timed_out' | 'failed';
  path?: string;
  /** The version number found in its output (e.g. `20.19.2`). */
  version?: string;
  /** The first line of its output, capped. */
  output?: string;
}

/** Variables that keep version probes from downloading or switching toolchains. */
const QUIET_ENV: Record<string, string> = {
  GOTOOLCHAIN: 'local',
  RUSTUP_AUTO_INSTALL: '0',
  COREPACK_ENABLE_NETWORK: '0',
  COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
  NO_UPDATE_NOTIFIER: '1',
};

const VERSION_RE = /\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.]+)?/;

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

const ownUid = typeof process.getuid === 'function' ? process.getuid() : 0;

/** Owned by root or by us, and not writable by group or others (a sticky folder included). */
function privatelyOwned(path: string): boolean {
  try {
    const st = statSync(path);
    return (st.uid === 0 || st.uid === ownUid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Why a PATH folder (or a program in it) is not trusted for a probe the daemon runs on its own
 * (issue 12; docs/security.md, "Environment probes"), or null when it is: relative (`./bin`,
 * `bin`), inside a registered workspace (also through symlinks: a `~/bin` linked to a project's
 * `node_modules/.bin`), or writable by someone else (group/other-writable, or not owned by root or
 * us — `/tmp/x/bin`). A `node_modules/.bin` outside every workspace, owned by us and private (a
 * Node installed from npm, as CI's) is trusted.
 */
export function untrustedDir(dir: string, workspaceRoots: readonly string[]): string | null {
  if (!isAbsolute(dir)) return 'relative';
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    return 'missing';
  }
  if ([dir, real].some((d) => workspaceRoots.some((r) => inside(d, r)))) return 'inside a workspace';
  if (!privatelyOwned(real)) return 'writable by others';
  return null;
}

/** The first executable named `program` on `pathDirs`; `unsafe` when the first hit is in an untrusted folder ({@link untrustedDir}) or is itself a link into one or writable by others. */
export function findOnPath(program: string, pathDirs: readonly string[], workspaceRoots: readonly string[]): { path: string; unsafe: boolean } | null {
  for (const dir of pathDirs) {
    if (dir === '') continue;
    const p = join(dir, program);
    try {
      accessSync(p, constants.X_OK);
      if (!statSync(p).isFile()) continue;
    } catch {
      continue;
    }
    let unsafe = untrustedDir(dir, workspaceRoots) !== null;
    if (!unsafe) {
      try {
        const real = realpathSync(p);
        unsafe = untrustedDir(dirname(real), workspaceRoots) !== null || !privatelyOwned(real);
      } catch {
        unsafe = true;
      }
    }
    return { path: p, unsafe };
  }
  return null;
}

/** Variables a probe keeps from the session's environment (names; `LC_*` too). Values naming a folder inside a workspace are dropped. */
const PROBE_ENV_KEEP = ['HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'RUSTUP_HOME', 'CARGO_HOME', 'GOROOT', 'GOPATH', 'JAVA_HOME', 'PYENV_ROOT', 'NVM_DIR', 'VOLTA_HOME'];

/**
 * The environment a probe runs with (issue 12; docs/security.md): never the session's as it is —
 * no `BASH_ENV`/`ENV` (sourced by a `#!/bin/bash` wrapper), `NODE_OPTIONS`, `LD_PRELOAD`,
 * `PYTHONPATH` and the like — but `PATH` of the trusted folders only (so `npm`'s `#!/usr/bin/env
 * node` finds no planted `node`), {@link PROBE_ENV_KEEP} and `LC_*` (a path value inside a
 * workspace dropped), and {@link QUIET_ENV}.
 */
export function probeEnvironment(env: Record<string, string>, pathDirs: readonly string[], workspaceRoots: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (!PROBE_ENV_KEEP.includes(k) && !k.startsWith('LC_')) continue;
    if (isAbsolute(v) && workspaceRoots.some((r) => inside(v, r))) continue;
    out[k] = v;
  }
  out.PATH = pathDirs.filter((d) => d !== '' && untrustedDir(d, workspaceRoots) === null).join(':');
  return { ...out, ...QUIET_ENV };
}

/** Folder probes run in: never the workspace, whose files (`rust-toolchain.toml`, `.tool-versions`) could point a shim at a program of the project. */
export const PROBE_CWD = '/';

/** Runs `file args` in its own process group; resolves with its output, or `timed_out` at `deadline` (the group is killed). */
function runProbe(file: string, args: string[], env: Record<string, string>, cwd: string, deadline: number): Promise<{ timedOut: boolean; code: number | null; out: string }> {
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch {
      resolve({ timedOut: false, code: null, out: '' });
      return;
    }
    const finish = (r: { timedOut: boolean; code: number | null }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, out });
    };
    const take = (b: Buffer): void => {
      if (out.length < 4096) out += b.toString('utf8');
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.on('error', () => finish({ timedOut: false, code: null }));
    child.on('close', (code) => finish({ timedOut: false, code }));
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
      finish({ timedOut: true, code: null });
    }, Math.max(0, deadline - Date.now()));
  });
}

/**
 * Reads the version of every toolchain of {@link TOOL_PROBES} found on `pathDirs`, all at once,
 * each in its own process group, all ending by `deadlineMs` from now: a tool that hangs is killed
 * and reported `timed_out`, and never holds the reading past the deadline. Only programs from
 * trusted folders run ({@link findOnPath}), in {@link PROBE_CWD} (never the workspace),
 * with the cleaned {@link probeEnvironment} of `env`.
 */
export async function probeToolchains(
  pathDirs: readonly string[],
  env: Record<string, string>,
  workspaceRoots: readonly string[],
  deadlineMs: number = EnvironmentLimits.PROBE_DEADLINE_MS,
): Promise<Record<string, ToolchainFact>> {
  const deadline = Date.now() + deadlineMs;
  const probeEnv = probeEnvironment(env, pathDirs, workspaceRoots);
  const entries = await Promise.all(
    TOOL_PROBES.map(async (t): Promise<[string, ToolchainFact]> => {
      let found: { path: string; unsafe: boolean } | null = null;
      for (const p of t.programs) {
        found = findOnPath(p, pathDirs, workspaceRoots);
        if (found) break;
      }
      if (!found) return [t.name, { status: 'missing' }];
      if (found.unsafe) return [t.name, { status: 'skipped', path: found.path }];
      const r = await runProbe(found.path, t.args, probeEnv, PROBE_CWD, deadline);
      if (r.timedOut) return [t.name, { status: 'timed_out', path: found.path }];
      const line = r.out.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '';
      const version = VERSION_RE.exec(line)?.[0];
      const fact: ToolchainFact = { status: r.code === 0 && version ? 'ok' : 'failed', path: found.path, ...(line ? { output: line.slice(0, EnvironmentLimits.VERSION_MAX_CHARS) } : {}) };
      if (version) fact.version = version;
      return [t.name, fact];
    }),
  );
  return Object.fromEntries(entries);
}
