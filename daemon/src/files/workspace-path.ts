import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';

/** Symlinks followed while resolving one path before giving up (Linux uses 40). */
const MAX_SYMLINK_HOPS = 40;
/** Longest file name (one path component), bytes (Linux `NAME_MAX`). */
export const NAME_MAX_BYTES = 255;
/** Longest path the kernel takes, bytes without the terminating NUL (Linux `PATH_MAX` − 1). */
export const PATH_MAX_BYTES = 4095;

/** A workspace path after resolution (issue 4; field failure #18). */
export interface ResolvedPath {
  /** The workspace root it was resolved in (canonical): opens start there (files/beneath.ts). */
  root: string;
  /** Workspace-relative path, `/`-separated, no `.` segments; `''` is the workspace root. */
  rel: string;
  /** `root/rel`: the path operations act on (a final symlink is the link itself). */
  abs: string;
  /**
   * Canonical location: the realpath of the deepest existing ancestor plus the components that do
   * not exist yet; with `followFinal`, a final symlink is followed too.
   */
  real: string;
  /** `real` relative to the root (`/`-separated), for policy checks. */
  realRel: string;
  /** lstat of `abs`, or null when nothing is there. */
  lstat: Stats | null;
}

/**
 * Normalises a client path: relative, `/`-separated, no `..`, no NUL, no component longer than
 * {@link NAME_MAX_BYTES}. `''` and `.` are the root.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE for absolute paths and `..` segments, BAD_REQUEST for
 * NUL and names too long for the filesystem (issue 18).
 */
export function normaliseRelative(input: string): string {
  if (input.includes('\0')) throw new HoldfastError('BAD_REQUEST', 'a path must not contain NUL bytes');
  if (isAbsolute(input) || input.startsWith('~/')) {
    throw new HoldfastError('PATH_OUTSIDE_WORKSPACE', `"${input}" is absolute and not under the workspace root; give a path relative to the workspace root`, { details: { path: input } });
  }
  const parts: string[] = [];
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      throw new HoldfastError('PATH_OUTSIDE_WORKSPACE', `"${input}" contains "..": give a path inside the workspace without parent references`, { details: { path: input } });
    }
    if (Buffer.byteLength(seg) > NAME_MAX_BYTES) {
      throw new HoldfastError('BAD_REQUEST', `a name in "${input.slice(0, 80)}…" has ${Buffer.byteLength(seg)} bytes; file names have at most ${NAME_MAX_BYTES}`, { details: { max_name_bytes: NAME_MAX_BYTES } });
    }
    parts.push(seg);
  }
  return parts.join('/');
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * Canonicalises an absolute path whose tail may not exist: realpath of the deepest existing
 * ancestor + the missing components, following dangling symlinks lexically (so a new file under a
 * symlinked folder, or a dangling link that points out, is still placed where it would land).
 */
function canonical(abs: string, hops: number): string {
  try {
    return realpathSync.native(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      if (code === 'ELOOP') throw new HoldfastError('PATH_NOT_FOUND', `too many levels of symbolic links under ${abs}`);
      throw err;
    }
  }
  if (hops > MAX_SYMLINK_HOPS) throw new HoldfastError('PATH_NOT_FOUND', `too many levels of symbolic links at ${abs}`);
  const parent = dirname(abs);
  if (parent === abs) return abs;
  const base = abs.slice(parent.length + (parent.endsWith(sep) ? 0 : 1));
  const realParent = canonical(parent, hops);
  const here = join(realParent, base);
  const st = lstatOrNull(here);
  if (st?.isSymbolicLink()) {
    // A dangling link (realpath failed): resolve where it points, lexically.
    const target = readlinkSync(here);
    return canonical(isAbsolute(target) ? target : join(realParent, target), hops + 1);
  }
  return here;
}

/**
 * An absolute path spelled with the workspace root (`/home/me/proj/src/a.ts` for the root
 * `/home/me/proj`) as the relative path it names (`src/a.ts`; the root itself is `''`). Agents
 * copy such paths from command output, `pwd` and error messages. Any other input is returned
 * unchanged, so other absolute paths are still refused by {@link normaliseRelative}, and the
 * result still goes through the `..` and symlink checks.
 */
export function withinRoot(root: string, input: string): string {
  if (!input.startsWith('/')) return input;
  const trimmed = input.length > 1 ? input.replace(/\/+$/, '') : input;
  if (trimmed === root) return '';
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return trimmed.startsWith(prefix) ? trimmed.slice(prefix.length) : input;
}

/**
 * Resolves `input` inside the workspace `root` (a canonical realpath, as sessions store it).
 * Takes an absolute path under the root as the relative path it spells ({@link withinRoot}).
 * Refuses other absolute paths, `..`, and anything whose canonical location — through symlinks anywhere
 * on the path, including dangling ones and missing tails — is outside the root.
 * With `followFinal: false` a final symlink is not followed (move_out of a link, rename of a link),
 * but its folder still must resolve inside.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE, PATH_NOT_FOUND (symlink loops), BAD_REQUEST (also
 * for paths longer than {@link PATH_MAX_BYTES}).
 */
export function resolveWorkspacePath(root: string, input: string, opts: { followFinal: boolean } = { followFinal: true }): ResolvedPath {
  const rel = normaliseRelative(withinRoot(root, input));
  const abs = rel === '' ? root : join(root, rel);
  if (Buffer.byteLength(abs) > PATH_MAX_BYTES) {
    throw new HoldfastError('BAD_REQUEST', `the path has ${Buffer.byteLength(abs)} bytes with the workspace root; paths have at most ${PATH_MAX_BYTES}`, { details: { max_path_bytes: PATH_MAX_BYTES } });
  }
  const st = lstatOrNull(abs);
  let real: string;
  if (rel !== '' && !opts.followFinal && st?.isSymbolicLink()) {
    real = join(canonical(dirname(abs), 0), posix.basename(rel));
  } else {
    real = canonical(abs, 0);
  }
  if (!inside(root, real)) {
    throw new HoldfastError('PATH_OUTSIDE_WORKSPACE', `"${input}" leads outside the workspace (through a symbolic link to ${real}); only paths inside ${root} are allowed`, {
      details: { path: rel },
    });
  }
  const realRel = relative(root, real).split(sep).join('/');
  return { root, rel, abs, real, realRel, lstat: st };
}

/** The workspace-relative form of an absolute path already known to be inside `root`. */
export function toRelative(root: string, abs: string): string {
  return relative(root, abs).split(sep).join('/');
}
