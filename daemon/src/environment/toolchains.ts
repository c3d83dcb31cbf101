import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
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
 * What one probe found. `missing`: not on PATH; `skipped`: found only in a PATH entry that is
 * relative or inside a workspace (never run by the daemon: a project could plant it);
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

/** The first executable named `program` on `pathDirs`; `unsafe` when the first hit is in a relative or workspace folder. */
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
    const unsafe = !isAbsolute(dir) || workspaceRoots.some((r) => inside(dir, r));
    return { path: p, unsafe };
  }
  return null;
}

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
 * and reported `timed_out`, and never holds the reading past the deadline. Probes run in `cwd`
 * with `env` plus variables that keep them from downloading toolchains.
 */
export async function probeToolchains(
  pathDirs: readonly string[],
  env: Record<string, string>,
  cwd: string,
  workspaceRoots: readonly string[],
  deadlineMs: number = EnvironmentLimits.PROBE_DEADLINE_MS,
): Promise<Record<string, ToolchainFact>> {
  const deadline = Date.now() + deadlineMs;
  const probeEnv = { ...env, ...QUIET_ENV };
  const entries = await Promise.all(
    TOOL_PROBES.map(async (t): Promise<[string, ToolchainFact]> => {
      let found: { path: string; unsafe: boolean } | null = null;
      for (const p of t.programs) {
        found = findOnPath(p, pathDirs, workspaceRoots);
        if (found) break;
      }
      if (!found) return [t.name, { status: 'missing' }];
      if (found.unsafe) return [t.name, { status: 'skipped', path: found.path }];
      const r = await runProbe(found.path, t.args, probeEnv, cwd, deadline);
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
