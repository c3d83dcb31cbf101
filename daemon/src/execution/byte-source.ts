import { join } from 'node:path';
import { guardianPaths, type HomeLayout } from '@holdfast/shared/paths';
import { readLogFolder, WireLimits, type OutputSource } from '@holdfast/shared/protocol';
import type { GuardianLink } from '../sessions/link.js';

/** One read of an output source: bytes from `offset`; `end` = bytes ever written; `gap` below the retained start. */
export interface ByteSlice {
  data: Uint8Array;
  offset: number;
  next: number;
  gap: boolean;
  end: number;
  /** The producer has ended (null when unknown, e.g. read from disk). */
  exited: boolean | null;
}

/**
 * Where a task's output bytes come from (DESIGN §3, §5): the session's guardian while it lives
 * (it serves its in-memory logs and, for evicted tasks, the folders on disk), else the log folders
 * it left in `sessions/<id>/` — so a finished task stays readable after its guardian is gone.
 */
export interface ByteSource {
  read(src: OutputSource, from: number, max: number, waitMs?: number): Promise<ByteSlice>;
  /** Total bytes written to a source so far. */
  end(src: OutputSource): Promise<number>;
}

/** Reads through a live guardian. */
export function guardianSource(link: GuardianLink): ByteSource {
  return {
    async read(src, from, max, waitMs) {
      const r = await link.read({ src, from, max: Math.min(max, WireLimits.MAX_READ_BYTES), ...(waitMs ? { waitMs } : {}) });
      return { data: r.data, offset: r.offset, next: r.next, gap: r.gap, end: r.end, exited: r.exited };
    },
    async end(src) {
      // A read beyond the end answers at once with the total (no data, no wait).
      return (await link.read({ src, from: Number.MAX_SAFE_INTEGER, max: 1 })).end;
    },
  };
}

/** Reads the log folders a session left on disk (its guardian is gone). */
export function diskSource(layout: HomeLayout, sessionId: string): ByteSource {
  const folder = (src: OutputSource): string => {
    const paths = guardianPaths(layout, sessionId);
    if (src === 'pty') return paths.ptyLogDir;
    const [, id, stream] = src.split(':');
    return join(paths.tasksDir, id!, stream!);
  };
  return {
    async read(src, from, max) {
      const s = readLogFolder(folder(src), from, Math.min(max, WireLimits.MAX_READ_BYTES));
      return { data: s.data, offset: s.offset, next: s.next, gap: s.gap, end: s.end, exited: true };
    },
    async end(src) {
      return readLogFolder(folder(src), Number.MAX_SAFE_INTEGER, 0).end;
    },
  };
}
