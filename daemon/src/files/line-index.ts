import type { ByteSource } from './byte-source.js';
import { LineScanner } from './line-scan.js';

/** Bytes between two checkpoints of a line index. */
export const CHECKPOINT_INTERVAL_BYTES = 64 * 1024;
/** Chunk read while scanning forward for a line, bytes. */
const SCAN_CHUNK_BYTES = 1024 * 1024;

/**
 * A sparse line index over a 1-byte-newline text (UTF-8, ISO-8859-1): checkpoints
 * (line index → byte position) at least CHECKPOINT_INTERVAL_BYTES apart, so finding line N scans
 * at most one interval once the index covers it. Filled during the file's facts scan, or on demand
 * (in constant memory) for files too large to scan up front.
 */
export class LineIndex {
  /** Parallel arrays: line index and its start position, ascending. */
  private readonly lines: number[] = [0];
  private readonly positions: number[];
  /** Total lines once the whole file has been scanned, else null. */
  total: number | null = null;

  /** @param start position of line 0 (after a BOM). */
  constructor(readonly start = 0) {
    this.positions = [start];
  }

  /** A scanner callback that records checkpoints (call in file order, from the last checkpoint on). */
  recorder(): (line: number, pos: number) => void {
    return (line, pos) => {
      if (pos - this.positions[this.positions.length - 1]! >= CHECKPOINT_INTERVAL_BYTES) {
        this.lines.push(line);
        this.positions.push(pos);
      }
    };
  }

  private nearest(line: number): number {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid]! <= line) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Start position of line `line` (0-based), or null when the file has no such line. Scans forward
   * from the nearest checkpoint, SCAN_CHUNK_BYTES at a time (constant memory).
   */
  async positionOf(src: ByteSource, line: number): Promise<number | null> {
    if (line === 0) return this.start;
    if (this.total !== null && line >= this.total) return null;
    const k = this.nearest(line);
    if (this.lines[k] === line) return this.positions[k]!;
    const fromLine = this.lines[k]!;
    const fromPos = this.positions[k]!;
    const extend = k === this.lines.length - 1 && this.total === null;
    const record = this.recorder();
    let found = null as number | null;
    const scanner = new LineScanner((l, pos) => {
      const abs = fromLine + l;
      if (extend) record(abs, pos);
      if (abs === line) found = pos;
    }, fromPos);
    let pos = fromPos;
    while (found === null && pos < src.size) {
      const chunk = await src.read(pos, SCAN_CHUNK_BYTES);
      if (chunk.length === 0) break;
      scanner.push(chunk, pos);
      pos += chunk.length;
    }
    if (found === null || found >= src.size) {
      if (pos >= src.size && extend) {
        scanner.end(src.size);
        this.total = fromLine + scanner.totalLines(src.size);
      }
      return null;
    }
    return found;
  }
}
