import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { sep } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';

/**
 * Opening workspace paths without following symlinks at any step (issue 18 item 3: a parent folder
 * swapped for a symlink between the path check and the open let `read` return and `edit`
 * overwrite files outside the workspace — `O_NOFOLLOW` covers only the last component).
 *
 * Node has no `openat(2)`, but Linux has `/proc/self/fd/<fd>`: a path that starts there is looked
 * up from the exact folder the descriptor holds, wherever that folder is now. So a path is opened
 * one component at a time — the base folder (the workspace root, a canonical realpath), then
 * each folder below it with `O_DIRECTORY | O_NOFOLLOW` relative to the previous descriptor — and
 * the last component is opened, created, renamed or removed relative to the descriptor of its
 * folder. A component that was replaced by a symlink (or a file) in between fails with `ELOOP` or
 * `ENOTDIR` instead of being followed. The paths given here are canonical (the resolver followed
 * in-workspace symlinks already), so a symlink met here was put there after the check.
 *
 * An existing folder is opened in one call and its
 * descriptor's real path verified instead ({@link openVerified}): the same guarantee for the cost
 * of one `open` and one `readlink`, whatever the depth; the walk is the fallback (and makes
 * missing folders for `create`). Cost of a 1 KB read's open: docs/security.md "Measurements".
 */

/** Flags that open one folder level: a folder, never through a symlink. */
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** An open folder: entries are named through {@link DirHandle.entry} (looked up in this very folder). */
export interface DirHandle {
  readonly fd: number;
  /** Real path of the folder as it was opened (for messages and journals). */
  readonly real: string;
  /** A path naming `name` in this folder: `/proc/self/fd/<fd>/<name>`. */
  entry(name: string): string;
  close(): void;
}

function handle(fd: number, real: string): DirHandle {
  let open = true;
  return {
    fd,
    real,
    entry: (name) => `/proc/self/fd/${fd}/${name}`,
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** The error for a component that is not (any more) a folder of the workspace. */
function changed(shown: string, cause: unknown): HoldfastError {
  return new HoldfastError(
    'PATH_OUTSIDE_WORKSPACE',
    `a folder on the path to ${shown} was replaced (by a symbolic link or a file) while it was being opened; nothing was read or written — try again`,
    { retryable: true, details: { path: shown }, cause },
  );
}

/** `base` and the components of `abs` below it; `abs` must be `base` or inside it. */
function componentsBelow(base: string, abs: string): string[] {
  if (abs === base) return [];
  const prefix = base.endsWith(sep) ? base : base + sep;
  if (!abs.startsWith(prefix)) throw new HoldfastError('INTERNAL', `${abs} is not below ${base}`);
  return abs.slice(prefix.length).split(sep).filter((c) => c !== '');
}

/**
 * Opens the folder `abs` (canonical) from `base` one component at a time, never following a
 * symlink. With `create`, missing folders are made (mode 0777 less the umask, like `mkdir -p`)
 * and their paths appended to `made`.
 * @throws HoldfastError PATH_NOT_FOUND (missing without `create`), PATH_OUTSIDE_WORKSPACE (retryable:
 *   a component is a symlink or not a folder now).
 */
export function openDirBeneath(base: string, abs: string, opts: { create?: boolean; made?: string[]; shown?: string } = {}): DirHandle {
  const shown = opts.shown ?? abs;
  const parts = componentsBelow(base, abs);
  if (!opts.create) {
    const fast = openVerified(abs);
    if (fast !== null) return fast;
  }
  let fd = openSync(base, constants.O_RDONLY | constants.O_DIRECTORY);
  let real = base;
  try {
    for (const part of parts) {
      const next = `/proc/self/fd/${fd}/${part}`;
      let child: number;
      try {
        child = openSync(next, DIR_FLAGS);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && opts.create) {
          try {
            mkdirSync(next);
            opts.made?.push(real === sep ? `${sep}${part}` : `${real}${sep}${part}`);
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
          }
          try {
            child = openSync(next, DIR_FLAGS);
          } catch (e) {
            throw changed(shown, e);
          }
        } else if (code === 'ENOENT') {
          throw new HoldfastError('PATH_NOT_FOUND', `${shown} does not exist (a folder on its path is missing)`, { details: { path: shown } });
        } else if (code === 'ELOOP' || code === 'ENOTDIR') {
          const st = lstatSync(next, { throwIfNoEntry: false });
          if (st && !st.isSymbolicLink() && !st.isDirectory()) {
            throw new HoldfastError('BAD_REQUEST', `${shown}: ${real === sep ? '' : real}${sep}${part} is a file, not a folder`, { details: { path: shown } });
          }
          throw changed(shown, err);
        } else throw err;
      }
      closeSync(fd);
      fd = child;
      real = real === sep ? `${sep}${part}` : `${real}${sep}${part}`;
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return handle(fd, real);
}

/**
 * The fast way to the same guarantee for an existing folder: open `abs` in one call, then ask the
 * kernel where that descriptor really is (`readlink /proc/self/fd/<fd>`). Opening a folder has no
 * side effect wherever a swapped symlink led; if the descriptor is not exactly `abs`, it is closed
 * and null returned (the caller walks component by component for the precise error). What is then
 * done through the descriptor happens in that folder whatever is swapped afterwards. One `open`
 * and one `readlink` instead of one `open` per level.
 */
function openVerified(abs: string): DirHandle | null {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return null;
  }
  let real: string | null = null;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    // no /proc: walk instead
  }
  if (real !== abs) {
    closeSync(fd);
    return null;
  }
  return handle(fd, abs);
}

/** Splits a canonical path into its folder and last name. */
function parentAndName(abs: string): { dir: string; name: string } {
  const i = abs.lastIndexOf(sep);
  return { dir: i <= 0 ? sep : abs.slice(0, i), name: abs.slice(i + 1) };
}

/**
 * Opens the folder holding `abs` from `base` (see {@link openDirBeneath}) and returns it with the
 * last name. The caller closes the handle.
 */
export function openParentBeneath(base: string, abs: string, opts: { create?: boolean; made?: string[]; shown?: string } = {}): { dir: DirHandle; name: string } {
  const { dir, name } = parentAndName(abs);
  if (name === '') throw new HoldfastError('BAD_REQUEST', `${opts.shown ?? abs} has no name to open`);
  // The base itself (the workspace root as a target): its folder is above the base, found from `/`.
  const from = abs === base ? sep : base;
  return { dir: openDirBeneath(from, dir, opts), name };
}

/** Runs `fn` with the folder of `abs` open (see {@link openParentBeneath}); closes it afterwards. */
export function withParentBeneath<T>(base: string, abs: string, fn: (dir: DirHandle, name: string) => T, shown?: string): T {
  const { dir, name } = openParentBeneath(base, abs, shown === undefined ? {} : { shown });
  try {
    return fn(dir, name);
  } finally {
    dir.close();
  }
}

/**
 * Opens `abs` itself from `base` with `flags | O_NOFOLLOW` (a last component that is a symlink
 * fails with ELOOP). Returns the descriptor; fs errors of the last step are thrown as they are.
 */
export function openBeneath(base: string, abs: string, flags: number, mode?: number, shown?: string): number {
  return withParentBeneath(base, abs, (dir, name) => openSync(dir.entry(name), flags | constants.O_NOFOLLOW, mode), shown);
}

/** `lstat` of `abs` looked up from `base` without following symlinks; null when absent. */
export function lstatBeneath(base: string, abs: string): Stats | null {
  try {
    return withParentBeneath(base, abs, (dir, name) => lstatSync(dir.entry(name), { throwIfNoEntry: false }) ?? null);
  } catch (err) {
    if (err instanceof HoldfastError && err.code === 'PATH_NOT_FOUND') return null;
    throw err;
  }
}

/** `readlink` of the symlink `abs`, looked up from `base` without following the folders on its way. */
export function readlinkBeneath(base: string, abs: string): string {
  return withParentBeneath(base, abs, (dir, name) => readlinkSync(dir.entry(name)));
}

/**
 * The bytes of the regular file `abs`, opened from `base` without following a symlink at any step
 * ({@link openBeneath}, `O_NONBLOCK` so a FIFO swapped in does not hang), or null when it is not a
 * regular file (any more). Search and the code map read through this (docs/security.md): a folder
 * swapped for a symlink during their walk is never read through.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE / PATH_NOT_FOUND as {@link openBeneath}; fs errors.
 */
export function readFileBeneath(base: string, abs: string): Buffer | null {
  const fd = openBeneath(base, abs, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) return null;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
