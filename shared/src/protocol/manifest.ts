import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';

/**
 * On-disk records of a guardian (DESIGN §2, §4.4, §4.5): the manifest it writes when it is ready
 * (`run/g/<gid>.json`) and the exit record it writes before it exits (`sessions/<gid>/exit.json`).
 * Both are versioned JSON written atomically (temp file, fsync, rename).
 */
export interface GuardianManifest {
  schema: 1;
  gid: string;
  pid: number;
  /** `/proc/<pid>/stat` start time: pid + start time identify the process (no pid reuse). */
  startTime: string | null;
  shellPid: number;
  socketPath: string;
  /** Guardian protocol version it speaks. */
  proto: number;
  /** Build of the guardian bundle. */
  build: string;
  /** Absolute path of the bundle it runs (a guardian never loads newer code from disk). */
  bundlePath: string;
  /** Build of the daemon that spawned it (since proto 1, optional). */
  daemonBuild?: string;
  createdAt: number;
}

/** Why a guardian ended. */
export type ExitReason = 'shell_exit' | 'closed' | 'killed' | 'reaped' | 'pruned' | 'reclaimed' | 'orphan' | 'signal';

export interface ExitRecord {
  schema: 1;
  gid: string;
  reason: ExitReason;
  /** Exit code of the shell, if it exited by itself. */
  code: number | null;
  /** Signal that ended the shell, if any. */
  signal: string | null;
  endedAt: number;
  /** Final offsets: PTY bytes ever written, and each task's streams. */
  finalOffsets: { pty: number; tasks: Record<string, { stdout: number; stderr: number; exitCode: number | null }> };
}

/** Writes JSON atomically (temp in the same folder, fsync, rename), mode 0600. */
export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(value, null, 2) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Reads a JSON file; null when absent or unreadable. */
export function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

export function isGuardianManifest(v: unknown): v is GuardianManifest {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return o.schema === 1 && typeof o.gid === 'string' && typeof o.pid === 'number' && typeof o.socketPath === 'string' && typeof o.proto === 'number';
}

export function isExitRecord(v: unknown): v is ExitRecord {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return o.schema === 1 && typeof o.gid === 'string' && typeof o.reason === 'string' && typeof o.endedAt === 'number';
}
