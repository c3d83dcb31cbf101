import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { HoldfastError } from '@holdfast/shared/errors';

/**
 * Charsets holdfast reads and writes back byte-exactly (issue 4). `iso-8859-1` is the fallback for
 * text that is not valid UTF-8: every byte maps to one character and back, so an edit never
 * changes a byte it did not mean to (field failure #13). `binary` is anything else.
 */
export type Charset = 'utf-8' | 'utf-16le' | 'utf-16be' | 'iso-8859-1' | 'binary';

/** Charset and byte-order mark of a file. */
export interface CharsetInfo {
  charset: Charset;
  bom: boolean;
  /** BOM length in bytes (0, 2 or 3). */
  bomBytes: number;
}

const BOM_UTF8 = Buffer.from([0xef, 0xbb, 0xbf]);

/** Share of control bytes (other than tab, newlines, form feed, escape, backspace) above which non-UTF-8 bytes count as binary. */
const CONTROL_SHARE_MAX = 0.05;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True for UTF-16 charsets (2-byte code units; newlines are `0A 00` / `00 0A`). */
export function isWide(c: Charset): boolean {
  return c === 'utf-16le' || c === 'utf-16be';
}

/** Bytes of the BOM a charset writes. */
export function bomFor(c: Charset): Buffer {
  if (c === 'utf-8') return BOM_UTF8;
  if (c === 'utf-16le') return Buffer.from([0xff, 0xfe]);
  if (c === 'utf-16be') return Buffer.from([0xfe, 0xff]);
  return Buffer.alloc(0);
}

/** True when `buf` is valid UTF-8 except possibly for a sequence cut at its end (a sniff window). */
function isUtf8Prefix(buf: Buffer): boolean {
  if (isUtf8(buf)) return true;
  // Drop an incomplete trailing sequence (at most 3 bytes) and try again.
  for (let cut = 1; cut <= 3 && cut < buf.length; cut++) {
    const b = buf[buf.length - cut]!;
    if ((b & 0xc0) === 0xc0) return isUtf8(buf.subarray(0, buf.length - cut));
    if ((b & 0xc0) !== 0x80) return false;
  }
  return false;
}

/**
 * Detects charset and BOM from the head of a file (or the whole file when `complete`):
 * a BOM decides (UTF-8, UTF-16LE/BE; a UTF-32 BOM is binary); a NUL byte means binary; valid UTF-8
 * is UTF-8; other bytes with few control characters are ISO-8859-1; the rest is binary.
 */
export function detectCharset(head: Buffer, complete: boolean): CharsetInfo {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { charset: 'utf-8', bom: true, bomBytes: 3 };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) {
    if (head.length >= 4 && head[2] === 0 && head[3] === 0) return { charset: 'binary', bom: false, bomBytes: 0 };
    return { charset: 'utf-16le', bom: true, bomBytes: 2 };
  }
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { charset: 'utf-16be', bom: true, bomBytes: 2 };
  if (head.indexOf(0) !== -1) return { charset: 'binary', bom: false, bomBytes: 0 };
  if (complete ? isUtf8(head) : isUtf8Prefix(head)) return { charset: 'utf-8', bom: false, bomBytes: 0 };
  let control = 0;
  for (const b of head) {
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b && b !== 0x08) || b === 0x7f) control++;
  }
  if (control > head.length * CONTROL_SHARE_MAX) return { charset: 'binary', bom: false, bomBytes: 0 };
  return { charset: 'iso-8859-1', bom: false, bomBytes: 0 };
}

/** Decodes text bytes (without BOM) of a charset. Binary is refused. */
export function decodeText(bytes: Buffer, charset: Charset): string {
  switch (charset) {
    case 'utf-8':
      return bytes.toString('utf8');
    case 'iso-8859-1':
      return bytes.toString('latin1');
    case 'utf-16le':
    case 'utf-16be':
      return iconv.decode(bytes, charset, { stripBOM: false });
    case 'binary':
      throw new HoldfastError('FORMAT_MISMATCH', 'binary content has no text form');
  }
}

/**
 * Encodes text (without BOM) in a charset.
 * @throws HoldfastError FORMAT_MISMATCH when a character cannot be written in it (ISO-8859-1 > U+00FF, lone surrogates).
 */
export function encodeText(text: string, charset: Charset): Buffer {
  switch (charset) {
    case 'utf-8':
      if (LONE_SURROGATE.test(text)) throw new HoldfastError('FORMAT_MISMATCH', 'the text contains lone surrogates that UTF-8 cannot encode');
      return Buffer.from(text, 'utf8');
    case 'iso-8859-1':
      for (let i = 0; i < text.length; i++) {
        if (text.charCodeAt(i) > 0xff) {
          throw new HoldfastError('FORMAT_MISMATCH', `the file is ISO-8859-1 (not valid UTF-8) and cannot hold ${JSON.stringify(text[i])}; write bytes with content_base64 and newline_policy="exact" to change its charset`);
        }
      }
      return Buffer.from(text, 'latin1');
    case 'utf-16le':
    case 'utf-16be':
      return iconv.encode(text, charset, { addBOM: false });
    case 'binary':
      throw new HoldfastError('FORMAT_MISMATCH', 'a binary file cannot be edited as text; use content_base64 with newline_policy="exact"');
  }
}
