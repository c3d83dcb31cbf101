import { decodeText, type Charset } from '../files/charset.js';

/** How an artifact's bytes are delivered (issue 11): decoded text, or base64 of the raw bytes. */
export type DeliveryEncoding = 'utf-8' | 'base64';

/** Text encodings delivered as text; everything else (ISO-8859-1 included) goes out as base64. */
export function isTextDelivered(encoding: string): encoding is 'utf-8' | 'utf-16le' | 'utf-16be' {
  return encoding === 'utf-8' || encoding === 'utf-16le' || encoding === 'utf-16be';
}

/** BOM length of an artifact, bytes. */
export function bomLength(encoding: string, bom: boolean): number {
  if (!bom) return 0;
  return encoding === 'utf-8' ? 3 : encoding === 'utf-16le' || encoding === 'utf-16be' ? 2 : 0;
}

/** Where a page lies in the source, before any bytes are read. */
export interface PageRange {
  /** First source byte of the page (aligned to a character start). */
  start: number;
  /** Source byte after the page (aligned; `size` at the end). */
  end: number;
}

/** Reads `[from, to)` of the artifact's bytes (clipped to its size). */
export type ReadBytes = (from: number, to: number) => Buffer;

/** One delivered page of an artifact. Offsets are byte offsets of the source (BOM included). */
export interface ArtifactPage {
  source_offset: number;
  /** Offset to continue from, or null at the end. */
  next_source_offset: number | null;
  /** Source bytes this page covers. */
  source_bytes: number;
  delivery_encoding: DeliveryEncoding;
  /** Decoded text (text artifacts; never includes the BOM). */
  text?: string;
  /** Raw bytes (other artifacts). */
  base64?: string;
}

const isUtf8Continuation = (b: number): boolean => (b & 0xc0) === 0x80;

/** Length of the UTF-8 sequence a lead byte starts (1 for anything that is not a lead byte). */
function utf8SeqLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

function utf16Unit(read: ReadBytes, at: number, le: boolean): number {
  const b = read(at, at + 2);
  if (b.length < 2) return -1;
  return le ? b[0]! | (b[1]! << 8) : (b[0]! << 8) | b[1]!;
}

const isHigh = (u: number): boolean => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number): boolean => u >= 0xdc00 && u <= 0xdfff;

/**
 * The page of a text artifact that starts at `offset` and covers at most `limit` source bytes
 * (issue 11): the start moves back to the beginning of the character it falls in, the end back to
 * the end of the last whole character, so no page splits a UTF-8 sequence or a UTF-16 surrogate
 * pair; a page always holds at least one character, even when `limit` is smaller. The BOM is part
 * of the first page's range but never of its text.
 */
export function textPageRange(encoding: 'utf-8' | 'utf-16le' | 'utf-16be', bom: number, size: number, offset: number, limit: number, read: ReadBytes): PageRange {
  if (offset >= size) return { start: size, end: size };
  // The first character the page holds, and the page's start in source bytes (0 while in the BOM).
  let first = Math.max(offset, bom);
  if (encoding === 'utf-8') {
    while (first > bom && isUtf8Continuation(read(first, first + 1)[0]!)) first--;
  } else {
    first -= (first - bom) % 2;
    const le = encoding === 'utf-16le';
    if (first - 2 >= bom && isLow(utf16Unit(read, first, le)) && isHigh(utf16Unit(read, first - 2, le))) first -= 2;
  }
  const start = offset < bom ? 0 : first;
  let end = Math.min(size, start + limit);
  if (end < size) {
    if (encoding === 'utf-8') {
      while (end > first && isUtf8Continuation(read(end, end + 1)[0]!)) end--;
    } else {
      const le = encoding === 'utf-16le';
      end = Math.max(first, end - ((end - first) % 2));
      if (end - 2 >= first && isHigh(utf16Unit(read, end - 2, le)) && isLow(utf16Unit(read, end, le))) end -= 2;
    }
  }
  if (end <= first && first < size) {
    // limit is smaller than one character: deliver that one character.
    const len = encoding === 'utf-8' ? utf8SeqLength(read(first, first + 1)[0]!) : isHigh(utf16Unit(read, first, encoding === 'utf-16le')) ? 4 : 2;
    end = Math.min(size, first + len);
  }
  return { start, end };
}

/**
 * Builds one page of an artifact (issue 11 `artifact(read)`): text artifacts (UTF-8, UTF-16LE/BE)
 * as decoded `text` in whole characters, anything else as `base64` of exactly the bytes asked for.
 */
export function artifactPage(encoding: string, bomPresent: boolean, size: number, offset: number, limit: number, read: ReadBytes): ArtifactPage {
  if (!isTextDelivered(encoding)) {
    const start = Math.min(offset, size);
    const end = Math.min(size, start + limit);
    return { source_offset: start, next_source_offset: end < size ? end : null, source_bytes: end - start, delivery_encoding: 'base64', base64: read(start, end).toString('base64') };
  }
  const bom = bomLength(encoding, bomPresent);
  const { start, end } = textPageRange(encoding, bom, size, offset, limit, read);
  const from = Math.max(start, bom);
  const text = end > from ? decodeText(read(from, end), encoding as Charset) : '';
  return { source_offset: start, next_source_offset: end < size ? end : null, source_bytes: end - start, delivery_encoding: 'utf-8', text };
}
