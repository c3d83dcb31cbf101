import { readFileSync, readlinkSync, statfsSync } from 'node:fs';
import os from 'node:os';
import { probeToolchains, type ToolchainFact } from './toolchains.js';

/**
 * One reading of the environment a session's commands run in (issue 12, docs/environment.md).
 * Variable *names* only: no value is kept except PATH (as its entries), the locale variables and
 * SHELL.
 */
export interface EnvironmentReading {
  /** When it was taken, epoch ms, and how long it took, ms. */
  taken_at: number;
  duration_ms: number;
  os: { name: string; type: string; kernel: string; arch: string; hostname: string };
  cpu: { count: number; model: string };
  memory: { total_bytes: number; free_bytes: number };
  /** Free and total bytes of the workspace's file system. */
  disk: { path: string; free_bytes: number; total_bytes: number } | null;
  locale: Record<string, string>;
  shell: { path: string | null; env: string | null };
  path: string[];
  toolchains: Record<string, ToolchainFact>;
  env_names: string[];
}

const LOCALE_VARS = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ'];

/** PRETTY_NAME of /etc/os-release (or the kernel's name). */
function osName(): string {
  for (const f of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync(f, 'utf8'));
      if (m) return m[1]!;
    } catch {
      // next
    }
  }
  return `${os.type()} ${os.release()}`;
}

/** Where the session reads its environment from: the shell's process (its environment at exec and its program). */
export interface ReadingSource {
  env: Record<string, string>;
  /** The shell's program (`/proc/<pid>/exe`), if known. */
  shellPath: string | null;
  /** Folder probes run in and whose file system is measured. */
  workspaceRoot: string;
  /** Every registered workspace root: PATH entries inside one are never run. */
  workspaceRoots: readonly string[];
}

/** The environment of a live process (`/proc/<pid>/environ`), or null when it cannot be read. */
export function processEnvironment(pid: number): Record<string, string> | null {
  try {
    const env: Record<string, string> = {};
    for (const kv of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const i = kv.indexOf('=');
      if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    return env;
  } catch {
    return null;
  }
}

/** The program a live process runs, or null. */
export function processProgram(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** Takes one reading (toolchain probes bounded by EnvironmentLimits.PROBE_DEADLINE_MS). */
export async function takeReading(src: ReadingSource): Promise<EnvironmentReading> {
  const started = Date.now();
  const pathDirs = (src.env.PATH ?? '').split(':').filter((d) => d.length > 0);
  const toolchains = await probeToolchains(pathDirs, src.env, src.workspaceRoots);
  let disk: EnvironmentReading['disk'] = null;
  try {
    const st = statfsSync(src.workspaceRoot);
    disk = { path: src.workspaceRoot, free_bytes: st.bavail * st.bsize, total_bytes: st.blocks * st.bsize };
  } catch {
    disk = null;
  }
  const cpus = os.cpus();
  const locale: Record<string, string> = {};
  for (const k of LOCALE_VARS) if (src.env[k] !== undefined) locale[k] = src.env[k]!;
  return {
    taken_at: started,
    duration_ms: Date.now() - started,
    os: { name: osName(), type: os.type(), kernel: os.release(), arch: os.arch(), hostname: os.hostname() },
    cpu: { count: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length, model: cpus[0]?.model.trim() ?? '' },
    memory: { total_bytes: os.totalmem(), free_bytes: os.freemem() },
    disk,
    locale,
    shell: { path: src.shellPath, env: src.env.SHELL ?? null },
    path: pathDirs,
    toolchains,
    env_names: Object.keys(src.env).sort(),
  };
}
