import { HoldfastError } from '@holdfast/shared/errors';
import type { ByteSource } from './byte-source.js';
import type { FileFacts } from './file-facts.js';

const LF = 0x0a;
const CR = 0x0d;
/** Chunk of a backward scan for the last lines, bytes. */
const TAIL_CHUNK_BYTES = 64 * 1024;

/** Where a window of text starts and how much it may hold (issue 4 `read` window fields). */
export interface WindowRequest {
  /** First line, 0-based; negative counts from the end (-50 = the last 50 lines). */
  offset: number;
  /** Bytes to skip inside the first line (continuing a long line). */
  lineByteOffset: number;
  /** Lines at most (complete or partial). */
  limit: number;
  /** Bytes at most. */
  budgetBytes: number;
}

/** A window of text, LF-normalised, and how to continue. */
export interface TextWindow {
  content: string;
  /** 0-based index of the first line shown; null when unknown (a tail of a file too large to index). */
  firstLine: number | null;
  /** Lines shown (a partial first or last line counts). */
  lines: number;
  /** The window begins inside a line (line_byte_offset, or a tail longer than the budget). */
  partialFirst: boolean;
  /** The window ends inside a line (a line longer than the budget). */
  partialLast: boolean;
  /** Byte range in the text. */
  startPos: number;
  endPos: number;
  /** Where the next window starts, or null at the end of the file. */
  next: { offset: number; line_byte_offset: number } | null;
  /** Beyond the last line: the file has this many lines. */
  beyondEnd: boolean;
}

/** Moves `end` back so it does not split a UTF-8 sequence. */
function charBoundary(buf: Buffer, end: number, utf8: boolean): number {
  if (!utf8) return end;
  let e = end;
  while (e > 0 && e < buf.length && (buf[e]! & 0xc0) === 0x80) e--;
  return e === 0 ? end : e;
}

/** Moves `start` forward past UTF-8 continuation bytes. */
function charStart(buf: Buffer, start: number, utf8: boolean): number {
  if (!utf8) return start;
  let s = start;
  while (s < buf.length && (buf[s]! & 0xc0) === 0x80) s++;
  return s;
}

/** Decodes window bytes and normalises every terminator to `\n`. */
function renderText(bytes: Buffer, utf8: boolean): string {
  const s = bytes.toString(utf8 ? 'utf8' : 'latin1');
  return s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s;
}

interface Forward {
  end: number;
  lines: number;
  /** Complete lines (terminated, or the unterminated last line of the file). */
  complete: number;
  partialLast: boolean;
  atEof: boolean;
  bytes: Buffer;
}

/** Reads forward from `pos`: up to `limit` lines within `budget` bytes, cut at a line end when possible. */
async function forward(src: ByteSource, pos: number, limit: number, budget: number, utf8: boolean): Promise<Forward> {
  const avail = Math.max(0, src.size - pos);
  const want = Math.min(avail, budget);
  const buf = await src.read(pos, want + 1); // one byte of lookahead: a CRLF split by the budget
  let i = 0;
  let complete = 0;
  let boundary = 0;
  // Next LF / CR at or after i, each searched again only once passed (a file without CR costs one scan).
  let lf = buf.indexOf(LF, 0);
  let cr = buf.indexOf(CR, 0);
  while (complete < limit) {
    if (lf !== -1 && lf < i) lf = buf.indexOf(LF, i);
    if (cr !== -1 && cr < i) cr = buf.indexOf(CR, i);
    let t = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
    if (t === -1 || t >= want) break;
    const len = buf[t] === CR && buf[t + 1] === LF ? 2 : 1;
    t += len;
    i = t;
    complete++;
    boundary = t;
  }
  if (complete === limit) return { end: boundary, lines: complete, complete, partialLast: false, atEof: pos + boundary >= src.size, bytes: buf.subarray(0, boundary) };
  if (want === avail) {
    const extra = want > boundary ? 1 : 0; // the unterminated last line
    return { end: want, lines: complete + extra, complete: complete + extra, partialLast: false, atEof: true, bytes: buf.subarray(0, want) };
  }
  if (boundary > 0) return { end: boundary, lines: complete, complete, partialLast: false, atEof: false, bytes: buf.subarray(0, boundary) };
  // One line longer than the budget: cut inside it, on a character boundary.
  const end = charBoundary(buf, want, utf8);
  return { end, lines: 1, complete: 0, partialLast: true, atEof: false, bytes: buf.subarray(0, end) };
}

/**
 * Start of the k-th line from the end (a final terminator ends the last line), scanning backward
 * in constant memory; null when it lies more than `maxScan` bytes before the end.
 */
export async function tailLineStart(src: ByteSource, base: number, k: number, maxScan: number): Promise<number | null> {
  let end = src.size;
  const last2 = await src.read(end - 2, 2);
  if (last2.length > 0 && end > base) {
    const a = last2[last2.length - 1];
    if (a === LF) end -= last2.length === 2 && last2[0] === CR && end - 2 >= base ? 2 : 1;
    else if (a === CR) end -= 1;
  }
  let found = 0;
  let skipCR = false;
  let pos = end;
  while (pos > base) {
    const from = Math.max(base, pos - TAIL_CHUNK_BYTES);
    const chunk = await src.read(from, pos - from);
    for (let i = chunk.length - 1; i >= 0; i--) {
      const b = chunk[i];
      if (b === CR && skipCR) {
        skipCR = false;
        continue;
      }
      skipCR = false;
      if (b === LF || b === CR) {
        const start = from + i + 1;
        if (src.size - start > maxScan) return null;
        found++;
        if (found === k) return start;
        skipCR = b === LF;
      }
    }
    pos = from;
    if (src.size - pos > maxScan) return null;
  }
  return base;
}

/**
 * Reads a window of a text file (issue 4 `mode="window"`; field failure #15): by line offset
 * (negative = from the end), continuing inside a long line at `lineByteOffset`, bounded by lines
 * and bytes. Memory is bounded by the budget whatever the file size.
 * @throws HoldfastError BAD_REQUEST when `lineByteOffset` points past the end.
 */
export async function readTextWindow(f: FileFacts, req: WindowRequest): Promise<TextWindow> {
  const src = f.text!;
  const index = f.index!;
  const utf8 = f.transcoded || f.charset.charset === 'utf-8';
  const total = index.total ?? f.totalLines;
  let offset = req.offset;
  if (offset < 0 && total !== null) offset = Math.max(0, total + offset);

  if (offset >= 0) {
    const lineStart = await index.positionOf(src, offset);
    if (lineStart === null) {
      return { content: '', firstLine: offset, lines: 0, partialFirst: false, partialLast: false, startPos: src.size, endPos: src.size, next: null, beyondEnd: true };
    }
    const pos = lineStart + req.lineByteOffset;
    if (pos > src.size) throw new HoldfastError('BAD_REQUEST', `line_byte_offset ${req.lineByteOffset} is past the end of the file`);
    const fw = await forward(src, pos, req.limit, req.budgetBytes, utf8);
    let next: TextWindow['next'] = null;
    if (!fw.atEof) next = fw.partialLast ? { offset, line_byte_offset: req.lineByteOffset + fw.end } : { offset: offset + fw.complete, line_byte_offset: 0 };
    return {
      content: renderText(fw.bytes, utf8), firstLine: offset, lines: fw.lines, partialFirst: req.lineByteOffset > 0, partialLast: fw.partialLast,
      startPos: pos, endPos: pos + fw.end, next, beyondEnd: false,
    };
  }

  // The last |offset| lines of a file whose line count is unknown (too large to index).
  const k = -offset;
  const exact = req.lineByteOffset > 0;
  const start = await tailLineStart(src, index.start, k, exact ? Number.POSITIVE_INFINITY : req.budgetBytes);
  if (start === null) {
    // The k-th line from the end begins before the budget: show the end of the file.
    const from = Math.max(index.start, src.size - req.budgetBytes);
    const buf = await src.read(from, src.size - from);
    const s = charStart(buf, 0, utf8);
    const content = renderText(buf.subarray(s), utf8);
    const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
    return {
      content, firstLine: null, lines, partialFirst: true, partialLast: false,
      startPos: from + s, endPos: src.size, next: null, beyondEnd: false,
    };
  }
  const pos = start + req.lineByteOffset;
  const fw = await forward(src, pos, Math.min(req.limit, k), req.budgetBytes, utf8);
  let next: TextWindow['next'] = null;
  if (!fw.atEof) next = fw.partialLast ? { offset, line_byte_offset: req.lineByteOffset + fw.end } : { offset: offset + fw.complete, line_byte_offset: 0 };
  return {
    content: renderText(fw.bytes, utf8), firstLine: null, lines: fw.lines, partialFirst: req.lineByteOffset > 0, partialLast: fw.partialLast,
    startPos: pos, endPos: pos + fw.end, next, beyondEnd: false,
  };
}

/** A window of raw bytes (binary files): offset in bytes, negative from the end. */
export async function readByteWindow(src: ByteSource, offset: number, limit: number): Promise<{ bytes: Buffer; start: number; next: number | null }> {
  const start = offset < 0 ? Math.max(0, src.size + offset) : Math.min(offset, src.size);
  const bytes = await src.read(start, limit);
  const end = start + bytes.length;
  return { bytes, start, next: end < src.size ? end : null };
}
