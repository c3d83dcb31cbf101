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
 * Appending writer. Writes are synchronous (page cache), so a read right after an append always
 * sees the bytes; callers batch chunks as they arrive.
 */
export class SegmentLog {
  private readonly segments: Segment[] = [];
  private fd: number | null = null;
  private total = 0;

  constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly maxSegments: number,
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

  /** Appends bytes; rotates to a new segment when the current one is full. */
  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    let cur = this.segments[this.segments.length - 1];
    if (!cur || this.fd === null || cur.size >= this.segmentBytes) {
      this.rotate();
      cur = this.segments[this.segments.length - 1]!;
    }
    let written = 0;
    while (written < chunk.length) written += writeSync(this.fd!, chunk, written, chunk.length - written);
    cur.size += chunk.length;
    this.total += chunk.length;
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
    if (this.fd !== null) closeSync(this.fd);
    const seg: Segment = { start: this.total, size: 0 };
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
