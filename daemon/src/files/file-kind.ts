import { closeSync, constants, fstatSync, lstatSync, openSync, type BigIntStats, type Stats } from 'node:fs';
import { HoldfastError } from '@holdfast/shared/errors';
import { openParentBeneath, type DirHandle } from './beneath.js';

/** What a directory entry is (issue 4 `entries[].kind`, plus the special kinds we refuse). */
export type EntryKind = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'char-device' | 'block-device' | 'other';

/** Classifies a stat result (lstat: symlinks are `symlink`). */
export function kindOf(st: Stats | BigIntStats): EntryKind {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'char-device';
  if (st.isBlockDevice()) return 'block-device';
  return 'other';
}

/** The `kind` a listing shows: file | directory | symlink | other (issue 4). */
export function listingKind(k: EntryKind): 'file' | 'directory' | 'symlink' | 'other' {
  return k === 'file' || k === 'directory' || k === 'symlink' ? k : 'other';
}

/**
 * Refuses anything that is not a regular file, from its (already taken) stat — FIFOs, sockets and
 * devices are never opened, so a read can never block on them (field failure #15).
 * @throws HoldfastError UNSUPPORTED_FILE_TYPE.
 */
export function assertRegularFile(st: Stats | BigIntStats, rel: string): void {
  const k = kindOf(st);
  if (k === 'file') return;
  if (k === 'directory') {
    throw new HoldfastError('UNSUPPORTED_FILE_TYPE', `${rel || '.'} is a directory; list it with read(view="list", path="${rel}")`, { details: { path: rel, kind: k } });
  }
  throw new HoldfastError('UNSUPPORTED_FILE_TYPE', `${rel} is a ${k}, not a regular file; holdfast never opens FIFOs, sockets or devices`, { details: { path: rel, kind: k } });
}

/** An open regular file: descriptor and the stat taken through it. */
export interface OpenFile {
  fd: number;
  st: Stats;
}

/**
 * Opens a regular file for reading without ever blocking and without following a symlink at any
 * step (issue 18): its folder is opened component by component from `base` (the workspace root;
 * `/` for any canonical path), the entry is `lstat`ed there first (specials and symlinks refused
 * unopened), then opened `O_RDONLY | O_NONBLOCK | O_NOFOLLOW` and `fstat`ed to make sure it was not
 * swapped for something else in between.
 * @throws HoldfastError PATH_NOT_FOUND, UNSUPPORTED_FILE_TYPE, PATH_OUTSIDE_WORKSPACE (retryable: a
 *   folder on the way was replaced while it was being opened).
 */
export function openRegularFile(realPath: string, rel: string, base = '/'): OpenFile {
  let dir: DirHandle;
  let name: string;
  try {
    ({ dir, name } = openParentBeneath(base, realPath, { shown: rel }));
  } catch (err) {
    if (err instanceof HoldfastError) throw err;
    throw notFound(err, rel);
  }
  try {
    let st: Stats;
    try {
      st = lstatSync(dir.entry(name));
    } catch (err) {
      throw notFound(err, rel);
    }
    assertRegularFile(st, rel);
    let fd: number;
    try {
      fd = openSync(dir.entry(name), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (err) {
      throw notFound(err, rel);
    }
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.ino !== st.ino || fst.dev !== st.dev) {
      closeSync(fd);
      throw new HoldfastError('UNSUPPORTED_FILE_TYPE', `${rel} changed while it was being opened; try again`, { retryable: true, details: { path: rel } });
    }
    return { fd, st: fst };
  } finally {
    dir.close();
  }
}

/** Maps an fs error on `rel` to a HoldfastError (ENOENT → PATH_NOT_FOUND, ENAMETOOLONG → BAD_REQUEST). */
export function notFound(err: unknown, rel: string): HoldfastError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new HoldfastError('PATH_NOT_FOUND', `${rel} does not exist; list the folder with read(view="list") to find the right path`, { details: { path: rel } });
  }
  if (code === 'EACCES' || code === 'EPERM') return new HoldfastError('POLICY_DENIED', `${rel}: permission denied by the operating system`, { details: { path: rel } });
  if (code === 'ELOOP') return new HoldfastError('UNSUPPORTED_FILE_TYPE', `${rel}: too many levels of symbolic links`, { details: { path: rel } });
  if (code === 'ENAMETOOLONG') return new HoldfastError('BAD_REQUEST', `${rel.slice(0, 80)}…: the path is too long for the filesystem`, { details: { path: rel.slice(0, 200) } });
  return new HoldfastError('INTERNAL', `${rel}: ${(err as Error).message}`);
}
