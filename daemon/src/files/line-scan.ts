/**
 * Line terminators (issue 4 formats): `\n` (LF), `\r\n` (CRLF) and a lone `\r` (CR) each end a
 * line. A terminator at the very end of a file ends the last line; it does not start an empty one.
 */

const LF = 0x0a;
const CR = 0x0d;

/** Counts of each terminator. */
export interface LineEndingCounts {
  lf: number;
  crlf: number;
  cr: number;
}

/**
 * Incremental terminator scanner over encodings whose newline is one byte (UTF-8, ISO-8859-1):
 * push chunks in order with their absolute position; it counts terminators and reports where each
 * new line starts. Uses `indexOf` (memchr) so a 512 MiB scan stays fast.
 */
export class LineScanner {
  readonly counts: LineEndingCounts = { lf: 0, crlf: 0, cr: 0 };
  /** Terminators seen so far = index of the line being scanned. */
  line = 0;
  /** Absolute start position of the line being scanned. */
  lineStart: number;
  private pendingCR = false;

  /** @param onLineStart called with (line index, absolute byte position) of each line after the first. */
  constructor(
    private readonly onLineStart?: (line: number, pos: number) => void,
    start = 0,
  ) {
    this.lineStart = start;
  }

  private start(pos: number): void {
    this.line++;
    this.lineStart = pos;
    this.onLineStart?.(this.line, pos);
  }

  /** Lines of a stream that ended at `endPos`: terminators, plus an unterminated last line. */
  totalLines(endPos: number): number {
    return this.line + (this.lineStart < endPos ? 1 : 0);
  }

  /** Scans `chunk`, which starts at absolute position `base`. */
  push(chunk: Buffer, base: number): void {
    let i = 0;
    if (this.pendingCR && chunk.length > 0) {
      this.pendingCR = false;
      if (chunk[0] === LF) {
        this.counts.crlf++;
        i = 1;
        this.start(base + 1);
      } else {
        this.counts.cr++;
        this.start(base);
      }
    }
    let nextLf = chunk.indexOf(LF, i);
    let nextCr = chunk.indexOf(CR, i);
    while (nextLf !== -1 || nextCr !== -1) {
      if (nextCr === -1 || (nextLf !== -1 && nextLf < nextCr)) {
        this.counts.lf++;
        i = nextLf + 1;
        this.start(base + i);
        nextLf = chunk.indexOf(LF, i);
        continue;
      }
      // a CR: CRLF, lone CR, or undecided at the chunk's end
      if (nextCr === chunk.length - 1) {
        this.pendingCR = true;
        return;
      }
      if (chunk[nextCr + 1] === LF) {
        this.counts.crlf++;
        i = nextCr + 2;
        if (nextLf === nextCr + 1) nextLf = chunk.indexOf(LF, i);
      } else {
        this.counts.cr++;
        i = nextCr + 1;
      }
      this.start(base + i);
      nextCr = chunk.indexOf(CR, i);
    }
  }

  /** Ends the stream at absolute position `endPos` (a pending CR is a lone CR). */
  end(endPos: number): void {
    if (this.pendingCR) {
      this.pendingCR = false;
      this.counts.cr++;
      this.start(endPos);
    }
  }
}

/** One line of a decoded-in-place buffer: `[start, end)` is its text, `[end, next)` its terminator. */
export interface LineRecord {
  start: number;
  end: number;
  /** Start of the next line (= end + terminator length). */
  next: number;
}

/**
 * Splits `buf[from..]` into line records for a code unit of `unit` bytes (1, or 2 for UTF-16 with
 * `bigEndian` telling the byte order). A file without terminators is one line; an empty text is
 * zero lines; a final terminator does not open an empty last line.
 */
export function splitLineRecords(buf: Buffer, from: number, unit: 1 | 2, bigEndian = false): LineRecord[] {
  const out: LineRecord[] = [];
  let start = from;
  if (unit === 1) {
    const starts: number[] = [];
    const scanner = new LineScanner((_line, pos) => starts.push(pos));
    scanner.push(buf.subarray(from), from);
    scanner.end(buf.length);
    for (const next of starts) {
      // the terminator just before `next` is \n, \r\n or \r
      let end = next - 1;
      if (buf[end] === LF && end - 1 >= start && buf[end - 1] === CR) end--;
      out.push({ start, end, next });
      start = next;
    }
    if (start < buf.length) out.push({ start, end: buf.length, next: buf.length });
    return out;
  }
  const at = (i: number): number => (bigEndian ? (buf[i]! << 8) | buf[i + 1]! : buf[i]! | (buf[i + 1]! << 8));
  let i = from;
  const limit = buf.length - (buf.length - from) % 2;
  while (i < limit) {
    const u = at(i);
    if (u === LF) {
      out.push({ start, end: i, next: i + 2 });
      start = i + 2;
    } else if (u === CR) {
      if (i + 2 < limit && at(i + 2) === LF) {
        out.push({ start, end: i, next: i + 4 });
        i += 2;
      } else {
        out.push({ start, end: i, next: i + 2 });
      }
      start = i + 2;
    }
    i += 2;
  }
  if (start < buf.length) out.push({ start, end: buf.length, next: buf.length });
  return out;
}

/** The terminator bytes of a record, as a kind. */
export function terminatorOf(buf: Buffer, r: LineRecord, unit: 1 | 2): '' | '\n' | '\r\n' | '\r' {
  const len = r.next - r.end;
  if (len === 0) return '';
  if (len === 2 * unit) return '\r\n';
  const b = unit === 1 ? buf[r.end] : buf[r.end]! | buf[r.end + 1]!;
  return b === CR ? '\r' : '\n';
}
