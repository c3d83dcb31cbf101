import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fchownSync, fdatasyncSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { isProcessAlive } from '@holdfast/shared/proc';
import { openParentBeneath, withParentBeneath, type DirHandle } from './beneath.js';

/** Bytes per write call (a killed writer stops between two of them at worst). */
const WRITE_CHUNK_BYTES = 4 * 1024 * 1024;
/** A journalled temp file older than this is swept even if its pid is alive (pid reuse), ms. */
const STALE_TEMP_MS = 10 * 60 * 1000;

/**
 * Where temp files are journalled before they exist (daemon: the `temp_files` table). A process
 * killed with SIGKILL cannot remove its temp file; the journal names it for the next sweep.
 */
export interface TempJournal {
  begin(path: string): void;
  end(path: string): void;
  list(): { path: string; pid: number; created_at: number }[];
}

/** Options of an atomic write. */
export interface AtomicWriteOptions {
  /** Permission bits of the result (default: 0o666 less the umask, as for any new file). */
  mode?: number;
  /** Owner to restore (best effort; only when it differs from ours). */
  uid?: number;
  gid?: number;
  journal?: TempJournal;
  /** Test seam: called after each chunk is written, with the bytes written so far. */
  onChunk?: (written: number) => void | Promise<void>;
  /**
   * Folder the target's path is opened from without following symlinks (files/beneath.ts, issue
   * 18): the workspace root for workspace files; `/` by default (the target is canonical).
   */
  base?: string;
  /**
   * fsync the folder after the rename (default true): makes the rename itself survive a power loss.
   * The edit tool turns it off (docs/performance.md "Edits": its own records of the edit are not
   * fsynced either, and every later use of the file re-checks its sha256). Contents are always
   * fdatasynced before the rename, so the target holds the old or the new bytes, never a mix.
   */
  syncDir?: boolean;
}

/** A temp file written and fsynced, waiting to be renamed over its target. */
export interface StagedWrite {
  readonly target: string;
  readonly temp: string;
  /** Renames the temp file over the target and fsyncs the folder. */
  commit(): Promise<void>;
  /** Removes the temp file (the target is untouched). */
  abort(): Promise<void>;
}

/** The temp name for a target's name: hidden, in the same folder (same filesystem: rename is atomic). */
export function tempNameFor(name: string): string {
  return `.${name}.hf-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

/** Flags of a new temp file: created here, never an existing file, never through a symlink. */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function fsyncDir(dir: DirHandle): void {
  try {
    fsyncSync(dir.fd);
  } catch {
    // some filesystems refuse fsync on directories; the rename itself is still atomic
  }
}

/** The target's folder, opened without following symlinks from `opts.base`, and the temp file's names. */
function place(target: string, opts: AtomicWriteOptions): { dir: DirHandle; name: string; temp: string; tempReal: string } {
  const { dir, name } = openParentBeneath(opts.base ?? '/', target);
  const tempName = tempNameFor(name);
  return { dir, name, temp: dir.entry(tempName), tempReal: join(dir.real, tempName) };
}

/**
 * Writes `data` to a new temp file next to `target` (O_EXCL | O_NOFOLLOW, mode kept), fsyncs it,
 * and returns a handle to rename it into place (issue 4 atomic writes). Nothing touches `target`
 * until commit. The folder is opened once, component by component from `opts.base` without
 * following symlinks (issue 18), and the temp file, the rename and the folder fsync all go
 * through that descriptor: a folder swapped for a symlink meanwhile is never written into.
 * @throws the fs error when the temp file cannot be written (the temp file is removed);
 *   HoldfastError from files/beneath.ts when the folder cannot be opened safely.
 */
export async function stageWrite(target: string, data: Buffer, opts: AtomicWriteOptions = {}): Promise<StagedWrite> {
  if (data.length <= SYNC_WRITE_MAX_BYTES && opts.onChunk === undefined) return stageWriteSync(target, data, opts);
  const { dir, name, temp, tempReal } = place(target, opts);
  opts.journal?.begin(tempReal);
  let h: FileHandle | null = null;
  try {
    // A new file gets 0o666 less the umask, like any created file; a replaced one its old mode exactly.
    h = await open(temp, TEMP_FLAGS, opts.mode === undefined ? 0o666 : 0o600);
    if (opts.mode !== undefined) await h.chmod(opts.mode & 0o7777);
    if ((opts.uid !== undefined && opts.uid !== process.getuid?.()) || (opts.gid !== undefined && opts.gid !== process.getgid?.())) {
      await h.chown(opts.uid ?? -1, opts.gid ?? -1).catch(() => undefined);
    }
    for (let off = 0; off < data.length; ) {
      const n = Math.min(WRITE_CHUNK_BYTES, data.length - off);
      const { bytesWritten } = await h.write(data, off, n, off);
      off += bytesWritten;
      await opts.onChunk?.(off);
    }
    await h.datasync();
    await h.close();
    h = null;
  } catch (err) {
    await h?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    opts.journal?.end(tempReal);
    dir.close();
    throw err;
  }
  return staged(target, tempReal, dir, opts.journal, opts.syncDir !== false, {
    rename: () => rename(temp, dir.entry(name)),
    unlink: () => unlink(temp).catch(() => undefined),
  });
}

/**
 * The commit/abort half of a staged write; `ops` are the file operations (sync or async), `dir`
 * the target's folder (closed when the write is committed or aborted), fsynced after the rename
 * when `syncDir`.
 */
function staged(
  target: string,
  temp: string,
  dir: DirHandle,
  journal: AtomicWriteOptions['journal'],
  syncDir: boolean,
  ops: { rename: () => unknown; unlink: () => unknown },
): StagedWrite {
  let done = false;
  return {
    target,
    temp,
    async commit() {
      if (done) return;
      try {
        await ops.rename();
      } catch (err) {
        await ops.unlink();
        journal?.end(temp);
        done = true;
        dir.close();
        throw err;
      }
      done = true;
      journal?.end(temp);
      if (syncDir) fsyncDir(dir);
      dir.close();
    },
    async abort() {
      if (done) return;
      done = true;
      await ops.unlink();
      journal?.end(temp);
      dir.close();
    },
  };
}

/**
 * Files up to this size are written with synchronous calls: each libuv thread-pool round trip of
 * the async path costs more than the write itself (a 4 KiB write+fsync is ~0.3 ms here), and the
 * event loop is held for no longer than that. Larger writes stay async, in chunks.
 */
export const SYNC_WRITE_MAX_BYTES = 256 * 1024;

/** fsyncs a folder (after a rename in it); filesystems that refuse it are ignored. */
export function fsyncDirSync(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    fsyncSync(fd);
  } catch {
    // some filesystems refuse fsync on directories; the rename itself is still atomic
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** {@link stageWrite} for small data, with synchronous calls (same steps, same guarantees). */
function stageWriteSync(target: string, data: Buffer, opts: AtomicWriteOptions): StagedWrite {
  const { dir, name, temp, tempReal } = place(target, opts);
  opts.journal?.begin(tempReal);
  let fd: number | null = null;
  try {
    fd = openSync(temp, TEMP_FLAGS, opts.mode === undefined ? 0o666 : 0o600);
    if (opts.mode !== undefined) fchmodSync(fd, opts.mode & 0o7777);
    if ((opts.uid !== undefined && opts.uid !== process.getuid?.()) || (opts.gid !== undefined && opts.gid !== process.getgid?.())) {
      try {
        fchownSync(fd, opts.uid ?? -1, opts.gid ?? -1);
      } catch {
        // keep our own ownership when we may not give it away
      }
    }
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off, off);
    fdatasyncSync(fd);
    closeSync(fd);
    fd = null;
  } catch (err) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
    opts.journal?.end(tempReal);
    dir.close();
    throw err;
  }
  return staged(target, tempReal, dir, opts.journal, opts.syncDir !== false, {
    rename: () => renameSync(temp, dir.entry(name)),
    unlink: () => {
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
    },
  });
}

/**
 * Atomic replace: temp file in the same folder, fsync, rename, folder fsync; mode (and owner when
 * possible) kept. A writer killed half-way leaves the old file untouched; its temp file is named in
 * the journal and removed by {@link sweepTempFiles}.
 */
export async function writeFileAtomic(target: string, data: Buffer, opts: AtomicWriteOptions = {}): Promise<void> {
  const staged = await stageWrite(target, data, opts);
  try {
    await staged.commit();
  } catch (err) {
    await staged.abort();
    throw err;
  }
}

/**
 * Removes temp files left by writers that died (SIGKILL, crash): every journalled temp file except
 * those in `inFlight` (writes of this process still running) and those of another live process
 * younger than STALE_TEMP_MS. The daemon runs it at start, when nothing of its own is in flight.
 * @returns the paths removed.
 */
export function sweepTempFiles(journal: TempJournal, inFlight: ReadonlySet<string> = new Set(), now = Date.now()): string[] {
  const removed: string[] = [];
  for (const row of journal.list()) {
    if (inFlight.has(row.path)) continue;
    if (row.pid !== process.pid && isProcessAlive(row.pid) && now - row.created_at < STALE_TEMP_MS) continue;
    try {
      // Through its folder opened without following symlinks: never a file elsewhere (issue 18).
      withParentBeneath('/', row.path, (dir, name) => unlinkSync(dir.entry(name)));
      removed.push(row.path);
    } catch (err) {
      const code = err instanceof HoldfastError ? err.code : (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'PATH_NOT_FOUND') continue;
    }
    journal.end(row.path);
  }
  return removed;
}
