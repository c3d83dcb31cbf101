import { closeSync, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * On-disk output log with absolute byte offsets (DESIGN §3, §5): a folder of segment files named
 * by the offset of their first byte (`0000000000000000.log`, …). Bytes ever written are
 * `[0, end)`; the newest `maxSegments` segments are kept, so `[start, end)` is retained. A read
 * below `start` returns from `start` with `gap: true`.
 *
 * The guardian writes (PTY and task streams); the daemon may read the same folder after the
 * guardian has gone (a finished session's output stays readable). The format is therefore part
 * of the guardian contract.
 */
export interface LogSlice {
  data: Buffer;
  /** Offset of `data[0]`. */
  offset: number;
  /** Offset after the last byte returned. */
  next: number;
  /** True when the requested offset was below the retained start. */
  gap: boolean;
  /** Total bytes ever written. */
  end: number;
}

interface Segment {
  start: number;
  size: number;
}

const SEGMENT_RE = /^(\d{16})\.log$/;
const segName = (start: number): string => `${String(start).padStart(16, '0')}.log`;

function readRange(dir: string, segments: Segment[], end: number, from: number, max: number): LogSlice {
  const start = segments.length > 0 ? segments[0]!.start : end;
  let gap = false;
  let pos = from;
  if (pos < start) {
    gap = true;
    pos = start;
  }
  if (pos >= end || max <= 0) return { data: Buffer.alloc(0), offset: Math.min(pos, end), next: Math.min(pos, end), gap, end };
  const want = Math.min(max, end - pos);
  const out = Buffer.allocUnsafe(want);
  let copied = 0;
  for (const seg of segments) {
    if (copied >= want) break;
    const segEnd = seg.start + seg.size;
    if (segEnd <= pos + copied) continue;
    const at = pos + copied - seg.start;
    const n = Math.min(want - copied, seg.size - at);
    const fd = openSync(join(dir, segName(seg.start)), 'r');
    try {
      let got = 0;
      while (got < n) {
        const r = readSync(fd, out, copied + got, n - got, at + got);
        if (r === 0) break;
        got += r;
      }
      copied += got;
      if (got < n) break;
    } finally {
      closeSync(fd);
    }
  }
  return { data: out.subarray(0, copied), offset: pos, next: pos + copied, gap, end };
}

/** Lists the segments of a log folder (for a reader without the writer). */
export function scanSegments(dir: string): Segment[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const segs: Segment[] = [];
  for (const n of names) {
    const m = SEGMENT_RE.exec(n);
    if (!m) continue;
    try {
      segs.push({ start: Number(m[1]), size: statSync(join(dir, n)).size });
    } catch {
      // removed while scanning
    }
  }
  segs.sort((a, b) => a.start - b.start);
  return segs;
}

/** Reads `[from, from+max)` from a log folder nobody is writing any more. */
export function readLogFolder(dir: string, from: number, max: number): LogSlice {
  const segs = scanSegments(dir);
  const last = segs[segs.length - 1];
  const end = last ? last.start + last.size : 0;
  return readRange(dir, segs, end, from, max);
}

/**
 * The line written into a log when bytes could not be saved before (the disk was full): readers
 * see where output is missing. `n` bytes, CRLF so a terminal view starts it on its own line.
 */
export function lostOutputNote(n: number): Buffer {
  return Buffer.from(`\r\n[holdfast: ${n} bytes of output were not saved here: the disk was full]\r\n`);
}

/**
 * Appending writer. Writes are synchronous (page cache), so a read right after an append always
 * sees the bytes; callers batch chunks as they arrive.
 *
 * A write that fails (`ENOSPC`, `EDQUOT`, `EIO`… — a full disk) never throws to the caller: the
 * bytes that could not be written are dropped and counted ({@link lostBytes}), offsets stay those
 * of the bytes really on disk, and the next append tries again; the first one that succeeds
 * writes {@link lostOutputNote} first. The session goes on; its records tell the agent
 * (docs/sessions.md "A full disk").
 */
export class SegmentLog {
  private readonly segments: Segment[] = [];
  private fd: number | null = null;
  private total = 0;
  private lost = 0;
  private unreported = 0;

  constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly maxSegments: number,
    /** Called with the error of a failed write (once per run of failures). */
    private readonly onWriteError: (err: NodeJS.ErrnoException) => void = () => undefined,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Total bytes ever written. */
  get end(): number {
    return this.total;
  }

  /** Oldest retained offset. */
  get start(): number {
    return this.segments.length > 0 ? this.segments[0]!.start : this.total;
  }

  /** Bytes appended but not saved (a write failed), ever. */
  get lostBytes(): number {
    return this.lost;
  }

  /** Appends bytes; rotates to a new segment when the current one is full. Never throws on a write error. */
  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.unreported > 0) {
      const note = lostOutputNote(this.unreported);
      if (this.write(note) < note.length) {
        this.drop(chunk.length);
        return;
      }
      this.unreported = 0;
    }
    const written = this.write(chunk);
    if (written < chunk.length) this.drop(chunk.length - written);
  }

  private drop(n: number): void {
    this.lost += n;
    this.unreported += n;
  }

  /** Writes as much of `chunk` as the disk takes; returns the bytes written. */
  private write(chunk: Buffer): number {
    let written = 0;
    try {
      let cur = this.segments[this.segments.length - 1];
      if (!cur || this.fd === null || cur.size >= this.segmentBytes) {
        this.rotate();
        cur = this.segments[this.segments.length - 1]!;
      }
      while (written < chunk.length) {
        const n = writeSync(this.fd!, chunk, written, chunk.length - written);
        written += n;
        cur.size += n;
        this.total += n;
      }
    } catch (err) {
      if (this.unreported === 0) this.onWriteError(err as NodeJS.ErrnoException);
      // Reopened by the next append (the same segment when nothing more was written).
      if (this.fd !== null) {
        try {
          closeSync(this.fd);
        } catch {
          // already unusable
        }
        this.fd = null;
      }
    }
    return written;
  }

  /** Reads up to `max` bytes from absolute offset `from`. */
  read(from: number, max: number): LogSlice {
    return readRange(this.dir, this.segments, this.total, from, max);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private rotate(): void {
    const seg: Segment = { start: this.total, size: 0 };
    const last = this.segments[this.segments.length - 1];
    // Reopening after a failed open: the segment of this offset may exist already (empty).
    if (last && last.start === seg.start && this.fd === null) this.segments.pop();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.fd = openSync(join(this.dir, segName(seg.start)), 'a', 0o600);
    this.segments.push(seg);
    while (this.segments.length > this.maxSegments) {
      const old = this.segments.shift()!;
      try {
        unlinkSync(join(this.dir, segName(old.start)));
      } catch {
        // already gone
      }
    }
  }
}
