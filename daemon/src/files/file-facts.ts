import { createHash } from 'node:crypto';
import { fstatSync, readSync } from 'node:fs';
import { FileLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { fdSource, memorySource, type ByteSource } from './byte-source.js';
import { decodeText, detectCharset, isWide, type CharsetInfo } from './charset.js';
import type { OpenFile } from './file-kind.js';
import { LineIndex } from './line-index.js';
import { LineScanner } from './line-scan.js';
import { mimeTypeOf, sniffImage } from './mime.js';
import { countTerminators, formatFrom, tailEndsWithTerminator, type TextFormat } from './text-format.js';

/** Files up to this size are read whole into memory (one read, everything computed from it), bytes. */
export const IN_MEMORY_MAX_BYTES = 8 * 1024 * 1024;
/** Chunk of a streaming scan, bytes. */
const SCAN_CHUNK_BYTES = 1024 * 1024;
/** Tail sampled for the format of files too large to scan, bytes. */
const TAIL_SAMPLE_BYTES = 64 * 1024;
/** Facts of large files kept per identity. */
const CACHE_ENTRIES = 16;

/** What a file is, from its bytes (issue 4 `read`). */
export interface FileFacts {
  size: number;
  /** sha256 of the raw bytes, hex; null for files over FileLimits.HASH_MAX_BYTES. */
  sha256: string | null;
  charset: CharsetInfo;
  format: TextFormat;
  mime: string;
  kind: 'text' | 'binary' | 'image';
  /** Lines of a text file, when known. */
  totalLines: number | null;
  /** Raw bytes. */
  raw: ByteSource;
  /** The whole file, when it was read into memory. */
  bytes: Buffer | null;
  /** Text with one-byte newlines for windows: the file itself, or its UTF-8 form (UTF-16 files). */
  text: ByteSource | null;
  index: LineIndex | null;
  /** True when `text` is a UTF-8 transcoding (line_byte_offset counts its bytes). */
  transcoded: boolean;
}

interface CachedFacts {
  sha256: string | null;
  charset: CharsetInfo;
  format: TextFormat;
  totalLines: number | null;
  index: LineIndex | null;
}

/**
 * Facts of large files by identity (device, inode, size, mtime and ctime in nanoseconds): a
 * window read of a 200 MB log hashes it once, not per window. Any write changes ctime, so a
 * changed file never hits a stale entry.
 */
export class FactsCache {
  private readonly map = new Map<string, CachedFacts>();

  get(key: string): CachedFacts | undefined {
    const v = this.map.get(key);
    if (v) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: CachedFacts): void {
    this.map.set(key, v);
    if (this.map.size > CACHE_ENTRIES) this.map.delete(this.map.keys().next().value!);
  }
}

function identityKey(fd: number): string {
  const b = fstatSync(fd, { bigint: true });
  return `${b.dev}:${b.ino}:${b.size}:${b.mtimeNs}:${b.ctimeNs}`;
}

/** Reads a whole file through its descriptor (synchronously: only for files ≤ IN_MEMORY_MAX_BYTES). */
export function readWhole(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return got === size ? buf : buf.subarray(0, got);
}

/** sha256 hex of bytes. */
export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Facts of a file whose bytes are all in memory. */
export function factsFromBytes(path: string, bytes: Buffer): FileFacts {
  const charset = detectCharset(bytes, true);
  const head = bytes.subarray(0, FileLimits.SNIFF_BYTES);
  const sha256 = sha256Hex(bytes);
  if (charset.charset === 'binary') {
    const mime = mimeTypeOf(path, head, false);
    return {
      size: bytes.length, sha256, charset, mime, kind: sniffImage(head) ? 'image' : 'binary', totalLines: null,
      format: formatFrom(charset, { lf: 0, crlf: 0, cr: 0 }, false), raw: memorySource(bytes), bytes, text: null, index: null, transcoded: false,
    };
  }
  const wide = isWide(charset.charset);
  // One pass over the text for the line index; for one-byte charsets it also counts the endings.
  const text = wide ? Buffer.from(decodeText(bytes.subarray(charset.bomBytes), charset.charset), 'utf8') : bytes;
  const start = wide ? 0 : charset.bomBytes;
  const index = new LineIndex(start);
  const scanner = new LineScanner(index.recorder(), start);
  scanner.push(text.subarray(start), start);
  scanner.end(text.length);
  index.total = scanner.totalLines(text.length);
  const counts = wide ? countTerminators(bytes, charset) : { ...scanner.counts };
  const format = formatFrom(charset, counts, tailEndsWithTerminator(bytes.subarray(charset.bomBytes), charset));
  return {
    size: bytes.length, sha256, charset, format, mime: mimeTypeOf(path, head, true), kind: 'text', totalLines: index.total,
    raw: memorySource(bytes), bytes, text: memorySource(text), index, transcoded: isWide(charset.charset),
  };
}

/**
 * Facts of an open regular file. Small files are read whole; larger ones are streamed once
 * (sha256, line endings, line index, UTF-8 validity) in constant memory and cached by identity;
 * files over FileLimits.HASH_MAX_BYTES are sampled at head and tail (no sha256).
 * @throws HoldfastError FILE_TOO_LARGE for UTF-16 files too large to transcode.
 */
export async function loadFacts(file: OpenFile, path: string, cache: FactsCache): Promise<FileFacts> {
  const size = file.st.size;
  if (size <= IN_MEMORY_MAX_BYTES) return factsFromBytes(path, readWhole(file.fd, size));
  const raw = fdSource(file.fd, size);
  const head = await raw.read(0, FileLimits.SNIFF_BYTES);
  let charset = detectCharset(head, false);
  if (isWide(charset.charset)) {
    if (size > FileLimits.EDIT_MAX_FILE_BYTES) {
      throw new HoldfastError('FILE_TOO_LARGE', `${path} is a ${charset.charset} file of ${size} bytes; holdfast reads UTF-16 files up to ${FileLimits.EDIT_MAX_FILE_BYTES} bytes`, { details: { path, size } });
    }
    return factsFromBytes(path, await raw.read(0, size));
  }
  const key = identityKey(file.fd);
  let c = cache.get(key);
  if (!c) {
    c = size <= FileLimits.HASH_MAX_BYTES ? await scan(raw, charset) : await sample(raw, charset);
    cache.set(key, c);
  }
  charset = c.charset;
  const isText = charset.charset !== 'binary';
  return {
    size, sha256: c.sha256, charset, format: c.format, mime: mimeTypeOf(path, head, isText),
    kind: isText ? 'text' : sniffImage(head) ? 'image' : 'binary', totalLines: c.totalLines,
    raw, bytes: null, text: isText ? raw : null, index: c.index, transcoded: false,
  };
}

/** One streaming pass: sha256, terminators, line index and (for UTF-8) validity. */
async function scan(raw: ByteSource, sniffed: CharsetInfo): Promise<CachedFacts> {
  const hash = createHash('sha256');
  const isText = sniffed.charset !== 'binary';
  const index = isText ? new LineIndex(sniffed.bomBytes) : null;
  const scanner = new LineScanner(index?.recorder(), sniffed.bomBytes);
  const utf8 = sniffed.charset === 'utf-8' ? new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }) : null;
  let valid = true;
  let last: Buffer = Buffer.alloc(0);
  for (let pos = 0; pos < raw.size; ) {
    const chunk = await raw.read(pos, SCAN_CHUNK_BYTES);
    if (chunk.length === 0) break;
    hash.update(chunk);
    if (isText) {
      const body = pos === 0 ? chunk.subarray(sniffed.bomBytes) : chunk;
      scanner.push(body, pos === 0 ? sniffed.bomBytes : pos);
      if (utf8 && valid) {
        try {
          utf8.decode(chunk, { stream: true });
        } catch {
          valid = false;
        }
      }
    }
    pos += chunk.length;
    last = chunk.subarray(Math.max(0, chunk.length - 4));
  }
  const sha256 = hash.digest('hex');
  if (!isText) return { sha256, charset: sniffed, format: formatFrom(sniffed, { lf: 0, crlf: 0, cr: 0 }, false), totalLines: null, index: null };
  if (utf8 && valid) {
    try {
      utf8.decode();
    } catch {
      valid = false;
    }
  }
  scanner.end(raw.size);
  // Not UTF-8 after all (invalid bytes past the sniffed head): every byte maps 1:1 in ISO-8859-1.
  const charset: CharsetInfo = valid ? sniffed : { charset: 'iso-8859-1', bom: false, bomBytes: 0 };
  const totalLines = scanner.totalLines(raw.size);
  index!.total = totalLines;
  return { sha256, charset, format: formatFrom(charset, { ...scanner.counts }, tailEndsWithTerminator(last, charset)), totalLines, index };
}

/** Files over FileLimits.HASH_MAX_BYTES: format from the head and tail only; no sha256. */
async function sample(raw: ByteSource, sniffed: CharsetInfo): Promise<CachedFacts> {
  if (sniffed.charset === 'binary') return { sha256: null, charset: sniffed, format: formatFrom(sniffed, { lf: 0, crlf: 0, cr: 0 }, false, true), totalLines: null, index: null };
  const head = await raw.read(0, TAIL_SAMPLE_BYTES);
  const tail = await raw.read(raw.size - TAIL_SAMPLE_BYTES, TAIL_SAMPLE_BYTES);
  const a = new LineScanner();
  a.push(head.subarray(sniffed.bomBytes), sniffed.bomBytes);
  a.end(head.length);
  const b = new LineScanner();
  b.push(tail, 0);
  b.end(tail.length);
  const counts = { lf: a.counts.lf + b.counts.lf, crlf: a.counts.crlf + b.counts.crlf, cr: a.counts.cr + b.counts.cr };
  return { sha256: null, charset: sniffed, format: formatFrom(sniffed, counts, tailEndsWithTerminator(tail, sniffed), true), totalLines: null, index: new LineIndex(sniffed.bomBytes) };
}
