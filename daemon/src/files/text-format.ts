import { detectCharset, isWide, type Charset, type CharsetInfo } from './charset.js';
import { LineScanner, splitLineRecords, terminatorOf, type LineEndingCounts } from './line-scan.js';

/** A file's line-ending style: one kind, several (`mixed`), or no terminator at all (`none`). */
export type LineEnding = 'LF' | 'CRLF' | 'CR' | 'mixed' | 'none';

/**
 * The format `read` reports and `edit` preserves (issue 4): charset, BOM, line endings with their
 * counts, and whether the last line ends with a terminator. `sampled` = counted on the head and
 * tail only (files over FileLimits.HASH_MAX_BYTES).
 */
export interface TextFormat {
  charset: Charset;
  bom: boolean;
  line_ending: LineEnding;
  line_ending_counts: LineEndingCounts;
  final_newline: boolean;
  sampled?: boolean;
}

/** The style named by terminator counts. */
export function lineEndingOf(c: LineEndingCounts): LineEnding {
  const kinds = (c.lf > 0 ? 1 : 0) + (c.crlf > 0 ? 1 : 0) + (c.cr > 0 ? 1 : 0);
  if (kinds === 0) return 'none';
  if (kinds > 1) return 'mixed';
  return c.lf > 0 ? 'LF' : c.crlf > 0 ? 'CRLF' : 'CR';
}

/** The most frequent terminator (ties: LF, CRLF, CR), used for lines an edit adds. */
export function dominantTerminator(c: LineEndingCounts): '\n' | '\r\n' | '\r' {
  if (c.crlf > c.lf && c.crlf >= c.cr) return '\r\n';
  if (c.cr > c.lf && c.cr > c.crlf) return '\r';
  return '\n';
}

/** True when the bytes end with a terminator of the charset (after the BOM). */
function endsWithTerminator(buf: Buffer, info: CharsetInfo): boolean {
  if (buf.length <= info.bomBytes) return false;
  if (info.charset === 'utf-16le') return buf.length >= info.bomBytes + 2 && buf[buf.length - 1] === 0 && (buf[buf.length - 2] === 0x0a || buf[buf.length - 2] === 0x0d);
  if (info.charset === 'utf-16be') return buf.length >= info.bomBytes + 2 && buf[buf.length - 2] === 0 && (buf[buf.length - 1] === 0x0a || buf[buf.length - 1] === 0x0d);
  const last = buf[buf.length - 1];
  return last === 0x0a || last === 0x0d;
}

/** Counts terminators of a whole in-memory text (after the BOM). */
export function countTerminators(buf: Buffer, info: CharsetInfo): LineEndingCounts {
  if (!isWide(info.charset)) {
    const s = new LineScanner();
    s.push(buf.subarray(info.bomBytes), info.bomBytes);
    s.end(buf.length);
    return { ...s.counts };
  }
  const counts: LineEndingCounts = { lf: 0, crlf: 0, cr: 0 };
  for (const r of splitLineRecords(buf, info.bomBytes, 2, info.charset === 'utf-16be')) {
    const t = terminatorOf(buf, r, 2);
    if (t === '\n') counts.lf++;
    else if (t === '\r\n') counts.crlf++;
    else if (t === '\r') counts.cr++;
  }
  return counts;
}

/** Format of a complete in-memory file. Binary files report zero counts. */
export function detectFormat(buf: Buffer): TextFormat {
  const info = detectCharset(buf, true);
  return formatFrom(info, info.charset === 'binary' ? { lf: 0, crlf: 0, cr: 0 } : countTerminators(buf, info), info.charset !== 'binary' && endsWithTerminator(buf, info));
}

/** Builds a format from its parts. */
export function formatFrom(info: CharsetInfo, counts: LineEndingCounts, finalNewline: boolean, sampled = false): TextFormat {
  const f: TextFormat = { charset: info.charset, bom: info.bom, line_ending: lineEndingOf(counts), line_ending_counts: counts, final_newline: finalNewline };
  if (sampled) f.sampled = true;
  return f;
}

/** True when the last byte(s) of a file end a line, for a file read only at its tail. */
export function tailEndsWithTerminator(tail: Buffer, info: CharsetInfo): boolean {
  return endsWithTerminator(tail, { ...info, bomBytes: 0 });
}
