import { closeSync, constants, fsyncSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import type { Logger } from '../log.js';

/**
 * A full disk under the holdfast state (issue 18 item 6). Before, an uncaught `SQLITE_FULL`
 * crashed holdfastd and every restart failed with `ENOSPC`, so the agent could not even free
 * space. Now:
 *
 * - The daemon keeps a **reserve** file of {@link RESERVE_BYTES} in `state/` while there is room.
 * - The first disk-full error (`SQLITE_FULL`, `ENOSPC`, `EDQUOT`) anywhere marks the disk
 *   **full**: the reserve is deleted, so the writes that keep the runtime going — the history,
 *   task rows of `execute`, `move_out` requests, the pid file of a restart — find room again.
 * - While full, tool calls that add data (`edit`) are refused with a retryable `DISK_FULL`;
 *   reads, `execute` (to free space) and `move_out` keep working.
 * - Every {@link RECHECK_MS} the free space is measured (`statfs`); once it is back above twice the
 *   reserve, the reserve is written again and the disk counts as not full: recovery needs no
 *   restart and no human.
 */
export class DiskSpace {
  private fullSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly reserve: string;

  constructor(
    private readonly stateDir: string,
    private readonly log: Logger,
  ) {
    this.reserve = join(stateDir, RESERVE_NAME);
  }

  /** The disk is full (since a disk-full error, until space is back). */
  get full(): boolean {
    return this.fullSince !== null;
  }

  /** Free bytes for an unprivileged writer on the state's filesystem (null when unknown). */
  freeBytes(): number | null {
    try {
      const s = statfsSync(this.stateDir);
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  }

  /**
   * At start: writes the reserve when there is room for it and more; when there is not, the disk
   * counts as full at once (and a reserve left by the previous daemon is given up first, so this
   * start finds room for its pid file and database).
   */
  start(): void {
    const free = this.freeBytes();
    if (free !== null && free < RESERVE_BYTES * 2) {
      this.markFull(new Error(`only ${free} bytes free at start`));
      return;
    }
    this.writeReserve();
  }

  /** Stops the recovery timer. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Notes an error: when it is a disk-full error the disk counts as full (reserve released,
   * recovery timer started). @returns whether it was one.
   */
  noteError(err: unknown): boolean {
    if (!isDiskFullError(err)) return false;
    this.markFull(err);
    return true;
  }

  /**
   * Refuses a write while the disk is full.
   * @throws HoldfastError `DISK_FULL` (retryable) saying what still works.
   */
  assertWritable(what: string): void {
    if (!this.full) return;
    throw diskFullError(what, this.freeBytes());
  }

  private markFull(err: unknown): void {
    if (this.fullSince === null) {
      this.fullSince = Date.now();
      this.log.error('the disk under the holdfast state is full: writes are refused until space is back', { error: (err as Error).message, free_bytes: this.freeBytes() });
    }
    rmSync(this.reserve, { force: true });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.recheck();
    }, RECHECK_MS);
    this.timer.unref();
  }

  /** Clears the full state when space is back (reserve written again), else checks again later. */
  recheck(): void {
    if (this.fullSince === null) return;
    const free = this.freeBytes();
    if (free !== null && free >= RESERVE_BYTES * 2 && this.writeReserve()) {
      this.log.info('disk space is back: writes are accepted again', { free_bytes: free, full_for_ms: Date.now() - this.fullSince });
      this.fullSince = null;
      return;
    }
    this.schedule();
  }

  /** Writes the reserve file (zeros, fsynced). @returns false when there was no room for it. */
  private writeReserve(): boolean {
    let fd: number | null = null;
    try {
      fd = openSync(this.reserve, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      const chunk = Buffer.alloc(64 * 1024);
      for (let written = 0; written < RESERVE_BYTES; ) written += writeSync(fd, chunk, 0, Math.min(chunk.length, RESERVE_BYTES - written));
      fsyncSync(fd);
      return true;
    } catch (err) {
      if (fd !== null) closeSync(fd);
      fd = null;
      rmSync(this.reserve, { force: true });
      if (!isDiskFullError(err)) this.log.warn('cannot write the disk reserve', { error: (err as Error).message });
      return false;
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }
}

/** Size of the reserve kept in `state/`, bytes. */
export const RESERVE_BYTES = 2 * 1024 * 1024;
/** Name of the reserve file in `state/`. */
export const RESERVE_NAME = 'disk-reserve';
/** How often free space is measured while the disk is full, ms. */
export const RECHECK_MS = 1000;

/** True for an error that means "no space left": SQLite's `SQLITE_FULL`, `ENOSPC`, `EDQUOT`. */
export function isDiskFullError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === 'DISK_FULL') return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isDiskFullError(cause);
}

/** The `DISK_FULL` error of a refused write (retryable: space may come back). */
export function diskFullError(what: string, freeBytes: number | null): HoldfastError {
  return new HoldfastError(
    'DISK_FULL',
    `${what} was refused: the disk is full${freeBytes !== null ? ` (${freeBytes} bytes free)` : ''}. Free space — execute and move_out still work — and retry; holdfast accepts writes again by itself once there is room`,
    { retryable: true, details: { free_bytes: freeBytes } },
  );
}
