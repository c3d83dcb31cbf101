import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { AuthConstants } from './constants.js';

/**
 * Bearer token files (DESIGN §6.2): a token file must be a regular file (not a symlink, not a
 * directory) owned by this user with no group or other permission bits (0600 or 0400), holding a
 * token of at least 32 bytes. A generated token is 32 random bytes, base64url, put in place with a
 * hard link so an existing file or a planted symlink is never followed or overwritten.
 */

/** Options of {@link readTokenFile} and {@link checkTokenStrength}. */
export interface TokenCheckOptions {
  /** Accept tokens shorter than {@link AuthConstants.MIN_TOKEN_BYTES} (`--allow-weak-token`). */
  allowWeak: boolean;
}

/**
 * Refuses an empty token, and a token shorter than 32 bytes unless `allowWeak`.
 * @param what names the token's source in the message (a path or `$VAR`).
 * @throws HoldfastError `BAD_REQUEST`.
 */
export function checkTokenStrength(token: string, what: string, opts: TokenCheckOptions): void {
  const bytes = Buffer.byteLength(token);
  if (bytes === 0) throw new HoldfastError('BAD_REQUEST', `the token in ${what} is empty`);
  if (bytes < AuthConstants.MIN_TOKEN_BYTES && !opts.allowWeak) {
    throw new HoldfastError(
      'BAD_REQUEST',
      `the token in ${what} is ${bytes} bytes; at least ${AuthConstants.MIN_TOKEN_BYTES} are required (generate one with \`openssl rand -base64 32\`, or pass --allow-weak-token for a throwaway setup)`,
    );
  }
}

/**
 * Checks that `path` is a safe token file: regular, not a symlink, owned by the current user,
 * mode without group/other bits.
 * @throws HoldfastError `BAD_REQUEST` saying what is wrong and how to fix it.
 */
export function checkTokenFileSafety(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    throw new HoldfastError('BAD_REQUEST', `token file ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (st.isSymbolicLink()) throw new HoldfastError('BAD_REQUEST', `token file ${path} is a symlink; point --token-file at the real file`);
  if (!st.isFile()) throw new HoldfastError('BAD_REQUEST', `token file ${path} is not a regular file`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new HoldfastError('BAD_REQUEST', `token file ${path} is owned by uid ${st.uid}, not by this user (${uid})`);
  if ((st.mode & 0o077) !== 0) {
    throw new HoldfastError('BAD_REQUEST', `token file ${path} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}; it must be 0600 (run \`chmod 600 ${path}\`)`);
  }
}

/**
 * Reads a token file after {@link checkTokenFileSafety}; surrounding whitespace (a trailing
 * newline) is not part of the token.
 * @throws HoldfastError `BAD_REQUEST` for an unsafe file or a weak token.
 */
export function readTokenFile(path: string, opts: TokenCheckOptions): string {
  checkTokenFileSafety(path);
  const token = readFileSync(path, 'utf8').trim();
  checkTokenStrength(token, path, opts);
  return token;
}

/**
 * Creates `path` with a fresh random token (mode 0600, parent directory 0700) unless it exists.
 * The token appears whole or not at all: it is written to a temporary file beside `path`
 * (exclusive create, 0600) and hard-linked into place — `link(2)` never follows or replaces an
 * existing name, a symlink included — so a second process starting at the same moment (four
 * adapters launched together) never reads an empty or half-written file. Never prints or logs the
 * token.
 * @returns whether a new token was written (false: a file, or another process's token, was there).
 */
export function ensureGeneratedTokenFile(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (existsOrLink(path)) return false;
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      writeSync(fd, randomBytes(AuthConstants.GENERATED_TOKEN_BYTES).toString('base64url') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Whether anything (a symlink included) has the name `path`. */
function existsOrLink(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
