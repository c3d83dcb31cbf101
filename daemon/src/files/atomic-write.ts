import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fchownSync, fdatasyncSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { chown, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isProcessAlive } from '@holdfast/shared/proc';

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

/** The temp name for a target: hidden, in the same folder (same filesystem: rename is atomic). */
export function tempNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.hf-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

async function fsyncDir(dir: string): Promise<void> {
  let h: FileHandle | null = null;
  try {
    h = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    await h.sync();
  } catch {
    // some filesystems refuse fsync on directories; the rename itself is still atomic
  } finally {
    await h?.close();
  }
}

/**
 * Writes `data` to a new temp file next to `target` (O_EXCL, mode kept), fsyncs it, and returns a
 * handle to rename it into place (issue 4 atomic writes). Nothing touches `target` until commit.
 * @throws the fs error when the temp file cannot be written (the temp file is removed).
 */
export async function stageWrite(target: string, data: Buffer, opts: AtomicWriteOptions = {}): Promise<StagedWrite> {
  if (data.length <= SYNC_WRITE_MAX_BYTES && opts.onChunk === undefined) return stageWriteSync(target, data, opts);
  const temp = tempNameFor(target);
  opts.journal?.begin(temp);
  let h: FileHandle | null = null;
  try {
    // A new file gets 0o666 less the umask, like any created file; a replaced one its old mode exactly.
    h = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, opts.mode === undefined ? 0o666 : 0o600);
    if (opts.mode !== undefined) await h.chmod(opts.mode & 0o7777);
    if ((opts.uid !== undefined && opts.uid !== process.getuid?.()) || (opts.gid !== undefined && opts.gid !== process.getgid?.())) {
      await chown(temp, opts.uid ?? -1, opts.gid ?? -1).catch(() => undefined);
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
    opts.journal?.end(temp);
    throw err;
  }
  return staged(target, temp, opts.journal, {
    rename: () => rename(temp, target),
    fsyncDir: () => fsyncDir(dirname(target)),
    unlink: () => unlink(temp).catch(() => undefined),
  });
}

/** The commit/abort half of a staged write; `ops` are the file operations (sync or async). */
function staged(
  target: string,
  temp: string,
  journal: AtomicWriteOptions['journal'],
  ops: { rename: () => unknown; fsyncDir: () => unknown; unlink: () => unknown },
): StagedWrite {
  let done = false;
  return {
    target,
    temp,
    async commit() {
      if (done) return;
      await ops.rename();
      done = true;
      journal?.end(temp);
      await ops.fsyncDir();
    },
    async abort() {
      if (done) return;
      done = true;
      await ops.unlink();
      journal?.end(temp);
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
  const temp = tempNameFor(target);
  opts.journal?.begin(temp);
  let fd: number | null = null;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, opts.mode === undefined ? 0o666 : 0o600);
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
    opts.journal?.end(temp);
    throw err;
  }
  return staged(target, temp, opts.journal, {
    rename: () => renameSync(temp, target),
    fsyncDir: () => fsyncDirSync(dirname(target)),
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
      unlinkSync(row.path);
      removed.push(row.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') continue;
    }
    journal.end(row.path);
  }
  return removed;
}
