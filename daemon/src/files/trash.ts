import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';

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

/** The trash folder the spec assigns to a file on device `dev`: the home trash, else `$topdir/.Trash-$uid`. */
function trashDirFor(abs: string, st: Stats, env: NodeJS.ProcessEnv): { dir: string; topdir: string | null } {
  const home = homeTrashDir(env);
  if (deviceOf(home) === st.dev) return { dir: home, topdir: null };
  const topdir = mountPointOf(dirname(abs), st.dev);
  const uid = process.getuid?.() ?? 0;
  const shared = join(topdir, '.Trash');
  try {
    const s = lstatSync(shared);
    // Spec: `$topdir/.Trash` must be a real directory with the sticky bit to be used.
    if (s.isDirectory() && (s.mode & STICKY_BIT) !== 0) return { dir: join(shared, String(uid)), topdir };
  } catch {
    // absent
  }
  return { dir: join(topdir, `.Trash-${uid}`), topdir };
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
 * Moves one path to the trash ourselves (FreeDesktop Trash spec 1.0): the `.trashinfo` is created
 * first with O_EXCL (it reserves the name), then the target is renamed into `files/` — never
 * copied, never followed. A failed rename removes the reservation.
 */
function builtinTrash(abs: string, st: Stats, env: NodeJS.ProcessEnv): TrashedItem {
  const { dir, topdir } = trashDirFor(abs, st, env);
  const filesDir = join(dir, 'files');
  const infoDir = join(dir, 'info');
  mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  mkdirSync(infoDir, { recursive: true, mode: 0o700 });
  const base = basename(abs);
  const path = topdir ? abs.slice(topdir.length).replace(/^\/+/, '') : abs;
  const body = `[Trash Info]\nPath=${escapePath(path)}\nDeletionDate=${deletionDate()}\n`;
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
      renameSync(abs, dest);
    } catch (err) {
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

/**
 * Moves a file, directory or symlink (as a link, never followed) to the FreeDesktop trash: through
 * `gio trash` or `trash-put` when one is on PATH, else with the built-in writer. Returns where it
 * went (found again by inode after a helper).
 * @throws HoldfastError TRASH_FAILED when nothing could move it (the target is then untouched).
 */
export async function moveToTrash(abs: string, env: NodeJS.ProcessEnv = process.env): Promise<TrashedItem> {
  const st = lstatSync(abs);
  const helpers: [TrashMethod, string | null][] = [
    ['gio', findOnPath('gio', env)],
    ['trash-put', findOnPath('trash-put', env)],
  ];
  const errors: string[] = [];
  for (const [method, bin] of helpers) {
    if (!bin) continue;
    try {
      await run(bin, method === 'gio' ? ['trash', '--', abs] : ['--', abs], env);
    } catch (err) {
      errors.push((err as Error).message);
      if (!present(abs)) break;
      continue;
    }
    const found = locate(abs, st, env, method);
    if (found) return found;
    errors.push(`${method} reported success but ${abs} was not found in a trash folder`);
    break;
  }
  if (present(abs)) {
    try {
      return builtinTrash(abs, st, env);
    } catch (err) {
      errors.push(`built-in trash: ${(err as Error).message}`);
    }
  }
  throw new HoldfastError('TRASH_FAILED', `could not move ${abs} to the trash: ${errors.join('; ')}`, { details: { path: abs } });
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
