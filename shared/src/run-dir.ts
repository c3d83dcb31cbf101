import { lstatSync, mkdirSync, realpathSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { HoldfastError } from './errors.js';

/**
 * Trust in the run folder (DESIGN §2 `run/`, issue 18). Sockets, the daemon lock, its pid file
 * and guardian manifests live there; whoever can write the folder can plant a fake `daemon.sock`
 * (and receive every tool call), a manifest that makes the daemon kill a process, or a symlink
 * where a temp file is about to be created. So the folder must be ours alone, and nobody else may
 * be able to swap it or one of its parents:
 *
 * - the folder itself: a real directory (not a symlink), owned by our effective uid, with no
 *   permission bits for group or others (0700);
 * - every parent (of its real path, up to `/`): owned by us or root, and not writable by group or
 *   others unless it has the sticky bit (like `/tmp`, where nobody may rename another's entry).
 *
 * This is what OpenSSH's `StrictModes` asks of `~/.ssh`. A socket in such a folder can only have
 * been bound by us (or root): a client that checks the folder and the socket file's owner before
 * it connects knows whom it talks to without `SO_PEERCRED` (which Node cannot read), and since
 * nobody else can rename entries there, the socket cannot be swapped between the check and the
 * `connect` (docs/security.md).
 */

/** The sticky bit (S_ISVTX). */
const STICKY_BIT = 0o1000;

function effectiveUid(): number {
  return process.geteuid?.() ?? 0;
}

function modeText(st: Stats): string {
  return (st.mode & 0o7777).toString(8).padStart(4, '0');
}

/**
 * Why `dir` is not a private folder of `uid` (see the file comment), or null when it is one.
 * @throws the fs error when `dir` does not exist (ENOENT) or cannot be examined.
 */
export function privateDirProblem(dir: string, uid: number = effectiveUid()): string | null {
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) return `${dir} is a symbolic link, not a folder`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  if (st.uid !== uid) return `${dir} belongs to uid ${st.uid}, not to this user (uid ${uid})`;
  if ((st.mode & 0o077) !== 0) return `${dir} has mode ${modeText(st)}; it must be 0700 (no access for group or others)`;
  let p = realpathSync(dirname(dir));
  for (;;) {
    const a = lstatSync(p);
    if (a.uid !== uid && a.uid !== 0) return `${p}, a parent of ${dir}, belongs to uid ${a.uid}, who could replace ${dir}`;
    if ((a.mode & 0o022) !== 0 && (a.mode & STICKY_BIT) === 0) return `${p}, a parent of ${dir}, is writable by ${(a.mode & 0o002) !== 0 ? 'everyone' : 'its group'} (mode ${modeText(a)}) without the sticky bit, so ${dir} could be replaced`;
    const up = dirname(p);
    if (up === p) return null;
    p = up;
  }
}

function refusal(dir: string, problem: string): HoldfastError {
  return new HoldfastError(
    'BAD_REQUEST',
    `refusing to use the run folder ${dir}: ${problem}. Another user may have created it to take over holdfast's sockets: ` +
      'remove it (or fix its owner and mode), or set XDG_RUNTIME_DIR or a shorter HOLDFAST_HOME so the sockets live in a folder of your own',
    { details: { unsafe_run_dir: dir, problem } },
  );
}

/**
 * Creates `dir` (and missing parents, 0700) and checks that it is private (issue 18); the daemon
 * calls it at start for `run/` and `run/g/` before it takes the lock or binds a socket.
 * @throws HoldfastError `BAD_REQUEST` (`details.unsafe_run_dir`) with what is wrong and what to do.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const problem = privateDirProblem(dir);
  if (problem !== null) throw refusal(dir, problem);
}

/**
 * Checks a Unix socket before a client connects to it (issue 18): its folder is private (see the
 * file comment) and the socket file is a socket owned by us — so only our own daemon or guardian
 * can be listening on it. Nothing is sent to a socket that fails this.
 * @throws HoldfastError `NOT_CONNECTED` (`details.errno` `ENOENT`) when the folder or socket does not
 *   exist (nothing listens yet), `BAD_REQUEST` (`details.unsafe_run_dir`) when it is not ours.
 */
export function assertOwnSocket(path: string): void {
  const dir = dirname(path);
  let problem: string | null;
  let st: Stats;
  try {
    problem = privateDirProblem(dir);
    st = lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    throw new HoldfastError('NOT_CONNECTED', `cannot connect to ${path}: ${code}`, { details: { errno: code } });
  }
  if (problem !== null) throw refusal(dir, problem);
  const uid = effectiveUid();
  if (!st.isSocket()) throw refusal(dir, `${path} is not a socket`);
  if (st.uid !== uid) throw refusal(dir, `the socket ${path} belongs to uid ${st.uid}, not to this user (uid ${uid})`);
}
