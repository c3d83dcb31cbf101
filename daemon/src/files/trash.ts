import { execFile } from 'node:child_process';
import { constants, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { openParentBeneath, type DirHandle } from './beneath.js';

/** How a target reached the trash. */
export type TrashMethod = 'gio' | 'trash-put' | 'builtin';

/** Where one target went (issue 4 `move_out` receipt). */
export interface TrashedItem {
  /** Absolute path it had. */
  original: string;
  /** Absolute path inside `<trash>/files/`. */
  trashed_to: string;
  /** Its `.trashinfo` file. */
  info_file: string;
  /** The trash folder used (`$XDG_DATA_HOME/Trash` or a `$topdir/.Trash-$uid`). */
  trash_dir: string;
  method: TrashMethod;
}

/** The sticky bit (S_ISVTX). */
const STICKY_BIT = 0o1000;

/** A trash helper run longer than this is abandoned (the target is then checked), ms. */
const HELPER_TIMEOUT_MS = 60_000;

/** `$XDG_DATA_HOME/Trash` (FreeDesktop Trash spec 1.0), default `~/.local/share/Trash`. */
export function homeTrashDir(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(data, 'Trash');
}

/** First executable called `name` on PATH, or null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      const st = statSync(p);
      if (st.isFile() && (st.mode & 0o111) !== 0) return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** The mount point holding `path` (walks up while the device stays the same). */
function mountPointOf(path: string, dev: number): string {
  let dir = path;
  for (;;) {
    const up = dirname(dir);
    if (up === dir) return dir;
    try {
      if (statSync(up).dev !== dev) return dir;
    } catch {
      return dir;
    }
    dir = up;
  }
}

/** Device of the deepest existing ancestor of `p`. */
function deviceOf(p: string): number {
  let dir = p;
  for (;;) {
    try {
      return statSync(dir).dev;
    } catch {
      const up = dirname(dir);
      if (up === dir) return -1;
      dir = up;
    }
  }
}

/** A trash folder the spec assigns, or why the one it would assign may not be used. */
type TrashChoice = { dir: string; topdir: string | null } | { refused: string; topdir: string };

/**
 * Why an existing folder may not hold our trash (FreeDesktop Trash spec 1.0, issue 18): it must
 * be a real folder (not a symlink), ours, and closed to group and others — else another user who
 * made it first could read what we move there. Null when it is fine or does not exist yet.
 */
function unsafeTrashDir(dir: string, uid: number): string | null {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return null;
  if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  if (st.uid !== uid) return `${dir} belongs to uid ${st.uid}`;
  if ((st.mode & 0o077) !== 0) return `${dir} has mode ${(st.mode & 0o777).toString(8)}, not 0700`;
  return null;
}

/**
 * The trash folder the spec assigns to a file on device `dev`: the home trash, else
 * `$topdir/.Trash/$uid` (when `$topdir/.Trash` is a real sticky folder), else `$topdir/.Trash-$uid`
 * — each refused when it exists but is not ours alone (see {@link unsafeTrashDir}).
 */
function trashDirFor(abs: string, st: Stats, env: NodeJS.ProcessEnv): TrashChoice {
  const home = homeTrashDir(env);
  if (deviceOf(home) === st.dev) return { dir: home, topdir: null };
  const topdir = mountPointOf(dirname(abs), st.dev);
  const uid = process.getuid?.() ?? 0;
  const shared = join(topdir, '.Trash');
  const s = lstatSync(shared, { throwIfNoEntry: false });
  // Spec: `$topdir/.Trash` must be a real directory with the sticky bit to be used.
  if (s && s.isDirectory() && (s.mode & STICKY_BIT) !== 0) {
    const dir = join(shared, String(uid));
    const problem = unsafeTrashDir(dir, uid);
    if (problem === null) return { dir, topdir };
  }
  const dir = join(topdir, `.Trash-${uid}`);
  const problem = unsafeTrashDir(dir, uid);
  return problem === null ? { dir, topdir } : { refused: problem, topdir };
}

/** URL-escapes a path for `Path=` (RFC 2396, `/` kept). */
function escapePath(p: string): string {
  return p.split('/').map((s) => encodeURIComponent(s)).join('/');
}

/** `DeletionDate` in local time, `YYYY-MM-DDThh:mm:ss`. */
function deletionDate(d = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * Creates (0700) or checks a folder of our trash: ours, never a symlink, and — on another
 * filesystem, where others could have made it — closed to group and others.
 */
function ensureTrashDir(dir: string, inHome: boolean): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.() ?? 0;
  let problem = unsafeTrashDir(dir, uid);
  if (inHome && problem !== null && /has mode/.test(problem)) problem = null; // the home trash's mode is the user's choice
  if (problem !== null) throw new HoldfastError('TRASH_FAILED', `refusing the trash folder: ${problem}`);
}

/** Where a target is: its folder opened without following symlinks from `base`, and its name. */
interface Pinned {
  dir: DirHandle;
  name: string;
}

/**
 * Moves one path to the trash ourselves (FreeDesktop Trash spec 1.0): the `.trashinfo` is created
 * first with O_EXCL (it reserves the name), then the target is renamed into `files/` — never
 * followed, through its pinned folder (issue 18). When the trash folder the spec assigns is not
 * ours alone, the target goes to the home trash instead, copied across filesystems (links kept as
 * links) and then removed. A failed move removes the reservation.
 */
function builtinTrash(abs: string, at: Pinned, st: Stats, env: NodeJS.ProcessEnv): TrashedItem {
  const choice = trashDirFor(abs, st, env);
  const crossDevice = 'refused' in choice;
  const dir = crossDevice ? homeTrashDir(env) : choice.dir;
  const topdir = crossDevice ? null : choice.topdir;
  const filesDir = join(dir, 'files');
  const infoDir = join(dir, 'info');
  for (const d of [dir, filesDir, infoDir]) ensureTrashDir(d, topdir === null);
  const base = basename(abs);
  const path = topdir ? abs.slice(topdir.length).replace(/^\/+/, '') : abs;
  const body = `[Trash Info]\nPath=${escapePath(path)}\nDeletionDate=${deletionDate()}\n`;
  const source = at.dir.entry(at.name);
  for (let n = 1; n < 10_000; n++) {
    const name = n === 1 ? base : `${base}.${n}`;
    const info = join(infoDir, `${name}.trashinfo`);
    try {
      writeFileSync(info, body, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    const dest = join(filesDir, name);
    if (present(dest)) {
      unlinkSync(info);
      continue;
    }
    try {
      if (crossDevice) {
        cpSync(source, dest, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, errorOnExist: true, force: false, mode: constants.COPYFILE_EXCL });
        rmSync(source, { recursive: true });
      } else {
        renameSync(source, dest);
      }
    } catch (err) {
      if (crossDevice && present(source)) rmSync(dest, { recursive: true, force: true });
      unlinkSync(info);
      throw err;
    }
    return { original: abs, trashed_to: dest, info_file: info, trash_dir: dir, method: 'builtin' };
  }
  throw new HoldfastError('TRASH_FAILED', `no free name for ${base} in ${dir}`);
}

/** Finds where a helper put `abs` (same device and inode, which a rename keeps). */
function locate(abs: string, st: Stats, env: NodeJS.ProcessEnv, method: TrashMethod): TrashedItem | null {
  const uid = process.getuid?.() ?? 0;
  const top = mountPointOf(dirname(abs), st.dev);
  const base = basename(abs);
  for (const dir of [homeTrashDir(env), join(top, '.Trash', String(uid)), join(top, `.Trash-${uid}`)]) {
    let names: string[];
    try {
      names = readdirSync(join(dir, 'files'));
    } catch {
      continue;
    }
    // Helpers number duplicates their own way (`notes.2.txt`, `notes.txt.2`): match the stem, then the inode.
    const stem = base.replace(/^(\.?[^.]*).*$/, '$1');
    for (const name of names) {
      if (!name.startsWith(stem)) continue;
      const dest = join(dir, 'files', name);
      try {
        const s = lstatSync(dest);
        if (s.ino !== st.ino || s.dev !== st.dev) continue;
      } catch {
        continue;
      }
      const info = join(dir, 'info', `${name}.trashinfo`);
      if (!existsSync(info)) continue;
      return { original: abs, trashed_to: dest, info_file: info, trash_dir: dir, method };
    }
  }
  return null;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env, timeout: HELPER_TIMEOUT_MS, killSignal: 'SIGKILL' }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${basename(cmd)} failed: ${String(stderr).trim() || err.message}`));
      else resolve();
    });
  });
}

/** Options of {@link moveToTrash}. */
export interface TrashOptions {
  /**
   * Folder `abs` is opened from without following symlinks (files/beneath.ts, issue 18): the
   * workspace root for workspace targets; `/` by default (`abs` is canonical).
   */
  base?: string;
  /** Identity the target must still have (device and inode frozen by `move_out prepare`). */
  expect?: { dev: number; ino: number };
}

/**
 * Moves a file, directory or symlink (as a link, never followed) to the FreeDesktop trash: through
 * `gio trash` or `trash-put` when one is on PATH, else with the built-in writer. Returns where it
 * went (found again by inode after a helper). The target's folder is opened without following
 * symlinks and the target checked there first; when the trash folder the spec assigns on another
 * filesystem is not ours alone (another user made `$topdir/.Trash-$uid`), the helpers are skipped
 * and the built-in writer uses the home trash (issue 18).
 * @throws HoldfastError TRASH_FAILED when nothing could move it (the target is then untouched).
 */
export async function moveToTrash(abs: string, env: NodeJS.ProcessEnv = process.env, opts: TrashOptions = {}): Promise<TrashedItem> {
  const at = openParentBeneath(opts.base ?? '/', abs);
  try {
    const st = lstatSync(at.dir.entry(at.name));
    if (opts.expect && (st.dev !== opts.expect.dev || st.ino !== opts.expect.ino)) {
      throw new HoldfastError('TRASH_FAILED', `${abs} was replaced since it was checked; nothing was moved`, { details: { path: abs } });
    }
    const choice = trashDirFor(abs, st, env);
    const helpers: [TrashMethod, string | null][] =
      'refused' in choice
        ? []
        : [
            ['gio', findOnPath('gio', env)],
            ['trash-put', findOnPath('trash-put', env)],
          ];
    const errors: string[] = 'refused' in choice ? [`the trash folder of ${choice.topdir} is not ours alone (${choice.refused}); using the home trash`] : [];
    for (const [method, bin] of helpers) {
      if (!bin) continue;
      try {
        await run(bin, method === 'gio' ? ['trash', '--', abs] : ['--', abs], env);
      } catch (err) {
        errors.push((err as Error).message);
        if (!present(at.dir.entry(at.name))) break;
        continue;
      }
      const found = locate(abs, st, env, method);
      if (found) return found;
      errors.push(`${method} reported success but ${abs} was not found in a trash folder`);
      break;
    }
    if (present(at.dir.entry(at.name))) {
      try {
        return builtinTrash(abs, at, st, env);
      } catch (err) {
        errors.push(`built-in trash: ${(err as Error).message}`);
      }
    }
    throw new HoldfastError('TRASH_FAILED', `could not move ${abs} to the trash: ${errors.join('; ')}`, { details: { path: abs } });
  } finally {
    at.dir.close();
  }
}

/** True when something (a dangling link included) is at `p`. */
function present(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Parses a `.trashinfo` file: `{path, deletion_date}` or null when it is not valid. */
export function parseTrashInfo(file: string): { path: string; deletion_date: string } | null {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines[0] !== '[Trash Info]') return null;
  const path = lines.find((l) => l.startsWith('Path='))?.slice(5);
  const date = lines.find((l) => l.startsWith('DeletionDate='))?.slice(13);
  if (!path || !date || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(date)) return null;
  return { path: decodeURIComponent(path), deletion_date: date };
}
