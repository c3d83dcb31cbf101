import { closeSync, constants, fchmodSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { isProcessAlive } from '@holdfast/shared/proc';
import { fsyncDirSync, stageWrite, sweepTempFiles, type StagedWrite, type TempJournal } from './atomic-write.js';

/**
 * Writing a file that has other hard links (issue 9, item 9; docs/file-tools.md "Hard links").
 *
 * An atomic replace (atomic-write.ts) renames a new inode over the name: every other name of the
 * file keeps the old bytes. For a file with more than one link the edit is written INTO the inode
 * instead, keeping the same crash guarantee — after a crash the file holds the old or the new
 * bytes, never a mix, once the daemon has started again:
 *
 * 1. the new bytes go to a temp file next to the target (journalled, written, `fdatasync`ed —
 *    {@link stageWrite});
 * 2. it is renamed to an *intent* name that records the target's device and inode
 *    (`.<name>.hf-<pid>-<rand>.i<dev>-<ino>.inplace`), journalled first; the folder is fsynced —
 *    from here on the new bytes are durable and the write will complete;
 * 3. commit: the target is opened without `O_TRUNC`, checked to still be that inode, written from
 *    offset 0, truncated to the new length, `fdatasync`ed (mode set when it changes);
 * 4. the intent file is removed.
 *
 * A writer killed during 3 leaves a torn target and its intent file: {@link sweepWrites} (run at
 * daemon start) copies the intent's bytes into the same inode again (roll forward) and removes it.
 * One thing atomic replace gives and this does not: a reader that opens the file DURING step 3 may
 * read a mix of old and new bytes.
 */
export interface InPlaceTarget {
  /** Device and inode the plan read (a file replaced meanwhile is not written). */
  dev: bigint;
  ino: bigint;
  /** Permission bits to set, when they change (undo). */
  mode?: number;
}

/** Options of an in-place write. */
export interface InPlaceOptions {
  journal?: TempJournal;
  /** Test seam: called after each chunk copied into the target, with the bytes written so far. */
  onChunk?: (written: number) => void | Promise<void>;
}

const INTENT = /^\.(.+)\.hf-\d+-[0-9a-f]+\.i(\d+)-(\d+)\.inplace$/;

/** Intent name of a staged temp file for `target` (see step 2). */
function intentNameFor(temp: string, t: InPlaceTarget): string {
  return `${temp.replace(/\.tmp$/, '')}.i${t.dev}-${t.ino}.inplace`;
}

/**
 * Steps 1–2 (nothing of the target is touched); `commit` does 3–4, `abort` removes the intent.
 * @throws the fs error when the new bytes cannot be staged.
 */
export async function stageInPlace(target: string, data: Buffer, t: InPlaceTarget, opts: InPlaceOptions = {}): Promise<StagedWrite> {
  const journal = opts.journal;
  const tmp = await stageWrite(target, data, journal ? { journal } : {});
  const intent = intentNameFor(tmp.temp, t);
  try {
    journal?.begin(intent);
    renameSync(tmp.temp, intent);
  } catch (err) {
    journal?.end(intent);
    await tmp.abort();
    throw err;
  }
  journal?.end(tmp.temp);
  fsyncDirSync(dirname(target));
  let done = false;
  return {
    target,
    temp: intent,
    async commit() {
      if (done) return;
      await copyInto(target, data, t, opts.onChunk);
      done = true;
      removeIntent(intent, journal);
    },
    async abort() {
      if (done) return;
      done = true;
      removeIntent(intent, journal);
    },
  };
}

/** Stages and commits at once (rollback of an edit). */
export async function writeInPlace(target: string, data: Buffer, t: InPlaceTarget, opts: InPlaceOptions = {}): Promise<void> {
  const s = await stageInPlace(target, data, t, opts);
  try {
    await s.commit();
  } catch (err) {
    await s.abort();
    throw err;
  }
}

/** Bytes per write while copying into the target. */
const COPY_CHUNK_BYTES = 1024 * 1024;

/** Step 3. @throws HoldfastError SHA_MISMATCH when the name now points to another inode. */
async function copyInto(target: string, data: Buffer, t: InPlaceTarget, onChunk?: InPlaceOptions['onChunk']): Promise<void> {
  const h = await open(target, constants.O_WRONLY | constants.O_NOFOLLOW);
  try {
    const st = await h.stat({ bigint: true });
    if (st.dev !== t.dev || st.ino !== t.ino) {
      throw new HoldfastError('SHA_MISMATCH', `${basename(target)} was replaced by another file while it was being edited; read it again`, { retryable: false });
    }
    if (t.mode !== undefined && Number(st.mode & 0o7777n) !== t.mode) await h.chmod(t.mode);
    for (let off = 0; off < data.length; ) {
      const { bytesWritten } = await h.write(data, off, Math.min(COPY_CHUNK_BYTES, data.length - off), off);
      off += bytesWritten;
      await onChunk?.(off);
    }
    await h.truncate(data.length);
    await h.datasync();
  } finally {
    await h.close();
  }
}

function removeIntent(intent: string, journal?: TempJournal): void {
  try {
    unlinkSync(intent);
  } catch {
    // already gone
  }
  journal?.end(intent);
}

/** Rolls one intent file forward into its target (same inode) and removes it. */
function rollForward(intent: string): 'completed' | 'dropped' {
  const m = INTENT.exec(basename(intent));
  let outcome: 'completed' | 'dropped' = 'dropped';
  if (m) {
    const target = join(dirname(intent), m[1]!);
    try {
      const st = statSync(target, { bigint: true });
      if (st.isFile() && st.dev === BigInt(m[2]!) && st.ino === BigInt(m[3]!)) {
        const data = readFileSync(intent);
        if (!readFileSync(target).equals(data)) {
          const fd = openSync(target, constants.O_WRONLY | constants.O_NOFOLLOW);
          try {
            if (fstatSync(fd, { bigint: true }).ino === st.ino) {
              for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off, off);
              ftruncateSync(fd, data.length);
              fdatasyncSync(fd);
            }
          } finally {
            closeSync(fd);
          }
        }
        outcome = 'completed';
      }
    } catch {
      // the target is gone or unreadable: nothing to complete
    }
  }
  try {
    unlinkSync(intent);
  } catch {
    // already gone
  }
  return outcome;
}

/**
 * The start-up sweep of interrupted writes: in-place writes whose writer died are completed (their
 * intent files rolled forward), then temp files of dead writers are removed
 * ({@link sweepTempFiles}). @returns the paths handled.
 */
export function sweepWrites(journal: TempJournal, inFlight: ReadonlySet<string> = new Set()): { completed: string[]; removed: string[] } {
  const completed: string[] = [];
  for (const row of journal.list()) {
    if (!row.path.endsWith('.inplace') || inFlight.has(row.path)) continue;
    if (row.pid !== process.pid && isProcessAlive(row.pid)) continue;
    if (rollForward(row.path) === 'completed') completed.push(row.path);
    journal.end(row.path);
  }
  return { completed, removed: sweepTempFiles(journal, inFlight) };
}
