import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';

/** Longest Unix socket path, bytes, without the terminating NUL (Linux `sun_path` is 108). */
export const SUN_PATH_MAX_BYTES = 107;

/** Longest guardian socket file name inside `run/g/`: `rs_` + 26-char ULID + `.sock`. */
const GUARDIAN_SOCKET_NAME_BYTES = 'rs_'.length + 26 + '.sock'.length;

/**
 * The runtime home layout (DESIGN §2). Every path a process needs comes from here, so the
 * daemon, guardians, adapter and CLI always agree.
 */
export interface HomeLayout {
  /** `HOLDFAST_HOME` (default `~/.holdfast`), created 0700. */
  home: string;
  config: string;
  token: string;
  stateDir: string;
  db: string;
  /**
   * Artifact snapshots (issue 11): `state/artifacts/<remote_session_id>/<artifact_id>`. Beside the
   * database rather than in `sessions/<id>/`, because artifacts age out on their own clock (not
   * with the session's logs) and are state, not output.
   */
  artifactsDir: string;
  /** Directory of sockets, lock and manifests; may be outside `home` (see `runDirRelocated`). */
  runDir: string;
  /** True when `home/run` would exceed the socket path limit and a short directory is used. */
  runDirRelocated: boolean;
  daemonSocket: string;
  daemonLock: string;
  /** `{pid, startTime}` of the daemon holding the lock. */
  daemonPidFile: string;
  guardianDir: string;
  sessionsDir: string;
  logsDir: string;
  daemonLog: string;
  auditLog: string;
  usageLog: string;
  /** OAuth signing keys, cookie keys and the owner password hash (issue 14), 0700; files 0600. */
  oauthDir: string;
  /** The user's own skills (issue 13): `home/skills/<name>/SKILL.md`. */
  skillsDir: string;
}

/** `HOLDFAST_HOME` from the environment, or `~/.holdfast`. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const h = env.HOLDFAST_HOME;
  return resolve(h && h.length > 0 ? h : join(homedir(), '.holdfast'));
}

/**
 * Creates the runtime home with mode 0700 (DESIGN §2), or tightens an existing one that other users
 * can read or enter (issue 8: a home made beforehand with mode 0755 was used without a word; it
 * holds the bearer token, the database and session logs). Returns a warning to print when it
 * changed the mode or could not, else null.
 */
export function ensurePrivateHome(home: string): string | null {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const mode = statSync(home).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  const was = mode.toString(8).padStart(4, '0');
  try {
    chmodSync(home, mode & 0o700);
    return `the runtime home ${home} was mode ${was} (other users could look inside); set it to 0700`;
  } catch (err) {
    return `the runtime home ${home} is mode ${was} and could not be made private (${(err as Error).message}); run chmod 700 ${home}`;
  }
}

/** Byte length of the longest guardian socket path under `runDir`. */
export function longestSocketPathBytes(runDir: string): number {
  return Buffer.byteLength(join(runDir, 'g')) + 1 + GUARDIAN_SOCKET_NAME_BYTES;
}

/**
 * Computes the layout for a home. When `home/run/g/<id>.sock` would not fit in `sun_path`, the
 * run directory moves to `$XDG_RUNTIME_DIR/holdfast/<hash>` or `/tmp/holdfast-<uid>/<hash>`
 * (hash of the home path, so two homes never share sockets); `doctor` reports it.
 */
export function homeLayout(home: string = resolveHome(), env: NodeJS.ProcessEnv = process.env): HomeLayout {
  let runDir = join(home, 'run');
  let runDirRelocated = false;
  if (longestSocketPathBytes(runDir) > SUN_PATH_MAX_BYTES) {
    const tag = createHash('sha256').update(home).digest('hex').slice(0, 12);
    const base = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'holdfast') : `/tmp/holdfast-${userInfo().uid}`;
    runDir = join(base, tag);
    runDirRelocated = true;
  }
  const stateDir = join(home, 'state');
  const logsDir = join(home, 'logs');
  return {
    home,
    config: join(home, 'config.yaml'),
    token: join(home, 'token'),
    stateDir,
    db: join(stateDir, 'holdfast.db'),
    artifactsDir: join(stateDir, 'artifacts'),
    runDir,
    runDirRelocated,
    daemonSocket: join(runDir, 'daemon.sock'),
    daemonLock: join(runDir, 'daemon.lock'),
    daemonPidFile: join(runDir, 'daemon.pid'),
    guardianDir: join(runDir, 'g'),
    sessionsDir: join(home, 'sessions'),
    logsDir,
    daemonLog: join(logsDir, 'daemon.log'),
    auditLog: join(logsDir, 'audit.jsonl'),
    usageLog: join(logsDir, 'usage.jsonl'),
    oauthDir: join(home, 'oauth'),
    skillsDir: join(home, 'skills'),
  };
}

/** Paths of one guardian (`gid` = its remote session id). */
export function guardianPaths(layout: HomeLayout, gid: string) {
  const sessionDir = join(layout.sessionsDir, gid);
  return {
    socket: join(layout.guardianDir, `${gid}.sock`),
    manifest: join(layout.guardianDir, `${gid}.json`),
    sessionDir,
    exitRecord: join(sessionDir, 'exit.json'),
    ptyLogDir: join(sessionDir, 'pty'),
    tasksDir: join(sessionDir, 'tasks'),
    guardianLog: join(sessionDir, 'guardian.log'),
    spec: join(sessionDir, 'spec.json'),
  };
}
