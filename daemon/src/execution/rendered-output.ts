import { OutputLimits, type OutputSource } from '@holdfast/shared/protocol';
import { renderTerminalText } from '../render/terminal-text.js';
import type { ByteSource } from './byte-source.js';

/** Raw bytes read to render a tail (rendering only shrinks text: ANSI, `\r` overwrites). */
export const RAW_TAIL_BYTES = 4 * OutputLimits.MODEL_TEXT_MAX_BYTES;
/** One read while collecting a range, bytes. */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

/** A rendered range of an output source. Offsets are absolute bytes of the source. */
export interface RenderedRange {
  text: string;
  /** The text does not cover `[start, end)`: its head was dropped (cap) or is gone from the log. */
  truncated: boolean;
  /** The log no longer holds the start of the range (rotated away, > 32 MiB per task). */
  logTruncated: boolean;
  start: number;
  end: number;
}

/** Reads `[from, end)` of a source (bounded by `end - from`). */
export async function readRange(source: ByteSource, src: OutputSource, from: number, end: number): Promise<{ bytes: Buffer; gap: boolean; first: number }> {
  const chunks: Buffer[] = [];
  let at = from;
  let gap = false;
  let first = -1;
  while (at < end) {
    const r = await source.read(src, at, Math.min(end - at, READ_CHUNK_BYTES));
    if (r.gap) gap = true;
    if (first < 0) first = r.offset;
    if (r.data.length === 0) break;
    chunks.push(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.length));
    at = r.next;
  }
  return { bytes: Buffer.concat(chunks), gap, first: first < 0 ? from : first };
}

/**
 * Renders the tail of `[start, end)` as model text (DESIGN §5, issue 5): ANSI and markers removed,
 * `\r` overwrites applied, at most `maxBytes` of UTF-8 (default 64 KiB) with the head dropped at a
 * line boundary when possible.
 */
export async function renderTail(source: ByteSource, src: OutputSource, start: number, end: number, maxBytes: number = OutputLimits.MODEL_TEXT_MAX_BYTES): Promise<RenderedRange> {
  if (end <= start) return { text: '', truncated: false, logTruncated: false, start, end };
  const from = Math.max(start, end - Math.max(RAW_TAIL_BYTES, maxBytes * 4));
  const r = await readRange(source, src, from, end);
  const capped = capHead(renderTerminalText(r.bytes), maxBytes);
  const logTruncated = r.gap || r.first > from;
  return { text: capped.text, truncated: capped.cut || from > start || logTruncated, logTruncated, start, end };
}

/**
 * The longest prefix of `text` made of whole code points that fits in `maxBytes` of UTF-8 (exact:
 * no cut bytes are decoded into U+FFFD).
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 4 || Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + n > maxBytes) break;
    bytes += n;
    i += cp >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, i);
}

/** Keeps the last `maxBytes` of UTF-8 text, cut at a line start when one is near. */
export function capHead(text: string, maxBytes: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= maxBytes) return { text, cut: false };
  const buf = Buffer.from(text);
  let out = buf.subarray(buf.length - maxBytes).toString('utf8').replace(/^\uFFFD+/, '');
  const nl = out.indexOf('\n');
  if (nl >= 0 && nl < 200) out = out.slice(nl + 1);
  return { text: out, cut: true };
}

/** MCP resource URI of a task's logs (issue 5). */
export function taskLogUri(remoteSessionId: string, taskId: string): string {
  return `holdfast://remote-sessions/${remoteSessionId}/tasks/${taskId}/logs`;
}

/** The "head dropped" marker put before a capped text (issue 5, field failure #16). */
export function headDroppedMarker(shownBytes: number, totalBytes: number, uri: string): string {
  return `[output head dropped: showing the last ${shownBytes} bytes of ${totalBytes}; full log: ${uri} (observe view=logs)]\n`;
}
