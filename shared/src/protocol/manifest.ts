import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';

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

/**
 * Creates a new temp file `<path>.<pid>.<random>.tmp` holding `data` (fsynced), mode `mode`, and
 * returns its path. It is opened `O_CREAT | O_EXCL | O_NOFOLLOW` (issue 18): an existing file or a
 * planted symlink at that name is never opened or written through — a name that is taken is
 * skipped for another random one.
 */
export function writeTempFile(path: string, data: string | Buffer, mode = 0o600): string {
  for (let attempt = 0; ; attempt++) {
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    let fd: number;
    try {
      fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 8) continue;
      throw err;
    }
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw err;
    }
    closeSync(fd);
    return tmp;
  }
}

/** Writes JSON atomically (a new temp file in the same folder, see {@link writeTempFile}; rename), mode 0600. */
export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = writeTempFile(path, JSON.stringify(value, null, 2) + '\n');
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
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
