import { closeSync } from 'node:fs';
import { FileLimits, OutputLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { ReadItem, ResultAction } from '@holdfast/shared/tools';
import { loadFacts, type FileFacts } from '../../files/file-facts.js';
import { openRegularFile } from '../../files/file-kind.js';
import { renderImage } from '../../files/image.js';
import { readByteWindow, readTextWindow, type TextWindow } from '../../files/line-window.js';
import type { ImageMime } from '../../files/mime.js';
import { action } from '../envelope.js';
import { resolveForRead, type FileWorkspace } from '../file-access.js';
import { splitPathRange } from './path-range.js';
import { utf8Prefix } from '../../execution/rendered-output.js';

/** One file read, ready to be put in a result (alone, in a batch or in a context bundle). */
export interface FileReadResult {
  path: string;
  data: Record<string, unknown>;
  /** Model-facing text: a header line, then the content. */
  text: string;
  /** Content bytes counted against a batch budget. */
  bytes: number;
  image?: { type: 'image'; data: string; mimeType: string };
  /** The read that continues this one, when the window did not reach the end. */
  next?: ResultAction;
}

/** Options of {@link readFile}. */
export interface ReadFileOptions {
  /** Window budget in bytes (policy `read_window_bytes`, or what a batch has left). */
  budgetBytes: number;
  /** Images are not rendered (context bundles): they are described instead. */
  noImages?: boolean;
}

/** The sha256 as the text block shows it: all 64 hex digits, what edit's base_sha256 takes (issue 8). */
function shaText(sha: string | null): string {
  return sha ?? 'not hashed';
}

/** The normalised window position of a read item. @throws HoldfastError BAD_REQUEST for contradictory fields. */
function position(item: ReadItem): { offset: number; lineByteOffset: number; limit: number } {
  if (item.start_line !== undefined) {
    if (item.offset !== undefined) throw new HoldfastError('BAD_REQUEST', 'give either start_line/end_line or offset, not both');
    const end = item.end_line ?? Number.POSITIVE_INFINITY;
    if (end < item.start_line) throw new HoldfastError('BAD_REQUEST', `end_line ${item.end_line} is before start_line ${item.start_line}`);
    const span = end - item.start_line + 1;
    return { offset: item.start_line - 1, lineByteOffset: item.line_byte_offset ?? 0, limit: Math.min(span, item.limit ?? span) };
  }
  if (item.end_line !== undefined) {
    return { offset: 0, lineByteOffset: item.line_byte_offset ?? 0, limit: Math.min(item.end_line, item.limit ?? item.end_line) };
  }
  return { offset: item.offset ?? 0, lineByteOffset: item.line_byte_offset ?? 0, limit: item.limit ?? Number.POSITIVE_INFINITY };
}

function formatSummary(f: FileFacts): string {
  const fmt = f.format;
  return `${fmt.charset}${fmt.bom ? '+BOM' : ''}, ${fmt.line_ending}${fmt.final_newline ? '' : ', no final newline'}`;
}

/**
 * Reads one workspace file (issue 4 `view="file"`): `mode="window"` (default; lines from `offset`,
 * negative = from the end, continuing a long line at `line_byte_offset`, `start_line`/`end_line`
 * or `path:10-40` — one range form per read, else BAD_REQUEST) or `mode="full"` (≤ FileLimits.READ_FULL_MAX_BYTES). Text comes back
 * LF-normalised with its exact format; images as image content; other binary data as base64. A
 * window already returned at the same sha to this conversation comes back as a compact "unchanged"
 * reference unless `force` (never to a caller that names no conversation: issue 8).
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE, POLICY_DENIED, PATH_NOT_FOUND, UNSUPPORTED_FILE_TYPE, FILE_TOO_LARGE, BAD_REQUEST.
 */
export async function readFile(ws: FileWorkspace, raw: ReadItem, opts: ReadFileOptions): Promise<FileReadResult> {
  const split = splitPathRange(ws.root, raw.path);
  if (split.start_line !== undefined && (raw.start_line !== undefined || raw.end_line !== undefined || raw.offset !== undefined)) {
    // Two range forms that may disagree (issue 8): never pick one silently.
    const given = [raw.start_line !== undefined ? `start_line=${raw.start_line}` : '', raw.end_line !== undefined ? `end_line=${raw.end_line}` : '', raw.offset !== undefined ? `offset=${raw.offset}` : ''].filter(Boolean).join(', ');
    throw new HoldfastError('BAD_REQUEST', `path "${raw.path}" already names lines ${split.start_line}-${split.end_line} and ${given} names others; give the range one way: path:N-M, or path with start_line/end_line, or offset/limit`);
  }
  const item: ReadItem = split.start_line !== undefined ? { ...raw, path: split.path, start_line: split.start_line, end_line: split.end_line } : raw;
  const mode = item.mode ?? 'window';
  if (mode !== 'window' && mode !== 'full') throw new HoldfastError('BAD_REQUEST', `mode "${mode}" is for other views; view="file" takes mode="window" or "full"`);
  if (mode === 'full' && (item.offset !== undefined || item.start_line !== undefined || item.end_line !== undefined || item.line_byte_offset !== undefined)) {
    throw new HoldfastError('BAD_REQUEST', 'mode="full" reads the whole file: drop offset/start_line/end_line, or use mode="window"');
  }
  const p = resolveForRead(ws, item.path);
  const rs = ws.session.id;
  const file = openRegularFile(p.real, p.rel, ws.root);
  try {
    if (mode === 'full' && file.st.size > FileLimits.READ_FULL_MAX_BYTES) {
      throw new HoldfastError('FILE_TOO_LARGE', `${p.rel} has ${file.st.size} bytes, over the ${FileLimits.READ_FULL_MAX_BYTES}-byte cap of mode="full"; read it in windows`, {
        details: { path: p.rel, size: file.st.size },
      });
    }
    const facts = await loadFacts(file, p.rel, ws.files.facts);
    const pos = mode === 'full' ? { offset: 0, lineByteOffset: 0, limit: Number.POSITIVE_INFINITY } : position(item);
    const base = { path: p.rel, kind: facts.kind, mime_type: facts.mime, size: facts.size, sha256: facts.sha256 };

    if (facts.sha256 !== null) {
      const key = `${mode}|${pos.offset}|${pos.lineByteOffset}|${pos.limit}|${opts.budgetBytes}`;
      let seen = false;
      try {
        seen = ws.files.reads.recordRead(ws.reader, p.realRel, facts.sha256, key);
      } catch (err) {
        // Read tracking is bookkeeping: on a full disk the read still answers (issue 18).
        if (!ws.disk.noteError(err)) throw err;
      }
      // "Unchanged since you read it" only to a caller known to be the one who read it: clients
      // that name no conversation (reader '') may be several conversations (issue 8).
      if (seen && item.force !== true && ws.reader.reader !== '') {
        return {
          path: p.rel,
          data: { ...base, unchanged: true, mode },
          text: `${p.rel}: unchanged since you read it in this conversation (sha256 ${shaText(facts.sha256)}); pass force=true to get the content again.`,
          bytes: 0,
        };
      }
    }

    if (facts.kind === 'image') {
      if (opts.noImages) return { path: p.rel, data: { ...base }, text: `${p.rel}: ${facts.mime} image, ${facts.size} bytes (read it alone to see it)`, bytes: 0 };
      const bytes = facts.bytes ?? (await facts.raw.read(0, facts.size));
      const img = await renderImage(bytes, facts.mime as ImageMime, p.rel);
      const data = { ...base, width: img.source.width, height: img.source.height, shown: { width: img.width, height: img.height, bytes: img.data.length, mime_type: img.mimeType, scaled: img.scaled } };
      return {
        path: p.rel,
        data,
        text: `${p.rel}: ${facts.mime} ${img.source.width}×${img.source.height}${img.scaled ? `, shown at ${img.width}×${img.height} (${img.mimeType})` : ''}, sha256 ${shaText(facts.sha256)}`,
        bytes: img.data.length,
        image: { type: 'image', data: img.data.toString('base64'), mimeType: img.mimeType },
      };
    }

    if (facts.kind === 'binary') {
      const offset = mode === 'full' ? 0 : item.offset ?? 0;
      const limit = mode === 'full' ? facts.size : Math.min(item.limit ?? opts.budgetBytes, opts.budgetBytes);
      const w = await readByteWindow(facts.raw, offset, limit);
      const data: Record<string, unknown> = { ...base, mode, encoding: 'base64', content_base64: w.bytes.toString('base64'), offset: w.start, limit, truncated: w.next !== null };
      const next = w.next !== null ? action('read', { remote_session_id: rs, path: p.rel, offset: w.next, limit }, 'read the next bytes') : undefined;
      return {
        path: p.rel,
        data,
        text: `${p.rel}: binary ${facts.mime}, bytes ${w.start}-${w.start + w.bytes.length} of ${facts.size}, sha256 ${shaText(facts.sha256)}; content_base64 is in the structured result.`,
        bytes: w.bytes.length,
        ...(next ? { next } : {}),
      };
    }

    const budget = mode === 'full' ? Math.max(facts.text!.size, 1) : opts.budgetBytes;
    const w = await readTextWindow(facts, { offset: pos.offset, lineByteOffset: pos.lineByteOffset, limit: pos.limit, budgetBytes: budget });
    const total = facts.index?.total ?? facts.totalLines;
    const startLine = w.firstLine !== null ? w.firstLine + 1 : null;
    const endLine = startLine !== null ? startLine + Math.max(0, w.lines - 1) : null;
    const data: Record<string, unknown> = {
      ...base,
      format: facts.format,
      mode,
      content: w.content,
      offset: item.start_line !== undefined ? pos.offset : item.offset ?? 0,
      line_byte_offset: pos.lineByteOffset,
      limit: Number.isFinite(pos.limit) ? pos.limit : null,
      start_line: startLine,
      end_line: w.lines === 0 ? startLine : endLine,
      total_lines: total,
      truncated: w.next !== null,
    };
    if (w.partialFirst) data.partial_first_line = true;
    if (w.partialLast) data.partial_last_line = true;
    if (facts.transcoded) data.line_byte_offset_unit = 'utf-8 bytes of the transcoded text';
    let next: ResultAction | undefined;
    if (w.next !== null) {
      data.next = w.next;
      const args: Record<string, unknown> = { remote_session_id: rs, path: p.rel, offset: w.next.offset };
      if (w.next.line_byte_offset > 0) args.line_byte_offset = w.next.line_byte_offset;
      if (Number.isFinite(pos.limit) && item.start_line === undefined && item.end_line === undefined) args.limit = pos.limit;
      next = action('read', args, w.next.line_byte_offset > 0 ? 'continue inside the long line' : 'read the next window');
    }
    const block = textBlockHead(w.content);
    // The header names the lines the text block shows (its footer continues after them), and the
    // window's when the block shows only its head (fresh-user review: text and footer agree).
    const range = w.beyondEnd
      ? `no line ${pos.offset + 1} (${total} lines)`
      : block.cut
        ? shownRange(block.head, startLine, endLine, w.lines, total)
        : startLine !== null
          ? `lines ${startLine}-${endLine}${total !== null ? ` of ${total}` : ''}`
          : `last ${w.lines} lines`;
    const header = `${p.rel} · ${range} · ${formatSummary(facts)} · sha256 ${shaText(facts.sha256)}`;
    let body: string;
    if (block.cut) {
      // The text block shows only the head of the window: its cursor continues where the shown
      // text ends, so a client that reads only text blocks misses nothing (data.next continues
      // data.content, the whole window).
      const unit = facts.transcoded || facts.charset.charset === 'utf-8' ? 'utf8' : 'latin1';
      const at = headContinuation(w, pos, block.head, w.content.slice(block.head.length), unit);
      const cursor = at === null ? '' : `; continue the text with read(path="${p.rel}", offset=${at.offset}${at.line_byte_offset > 0 ? `, line_byte_offset=${at.line_byte_offset}` : ''})`;
      body = `${block.head}${block.head.endsWith('\n') ? '' : '\n'}[… the text block shows the first ${Buffer.byteLength(block.head)} of ${Buffer.byteLength(w.content)} bytes${cursor}; the whole window is in structuredContent.data.content]`;
    } else {
      const footer = next ? `\n[more: read(path="${p.rel}", offset=${w.next!.offset}${w.next!.line_byte_offset > 0 ? `, line_byte_offset=${w.next!.line_byte_offset}` : ''})]` : '';
      body = `${block.head}${footer}`;
    }
    return { path: p.rel, data, text: `${header}\n${body}`, bytes: Buffer.byteLength(w.content), ...(next ? { next } : {}) };
  } finally {
    closeSync(file.fd);
  }
}

/**
 * The head of `content` that the text block shows (DESIGN §6.3: large data never mirrored): all of
 * it up to `OutputLimits.TEXT_BLOCK_MAX_BYTES` of UTF-8, else a head cut on a character boundary —
 * at its last line end when that keeps more than half the cap. `cut` says whether it is the head.
 */
export function textBlockHead(content: string): { head: string; cut: boolean } {
  const max = OutputLimits.TEXT_BLOCK_MAX_BYTES;
  let head = utf8Prefix(content, max);
  if (head.length === content.length) return { head: content, cut: false };
  const nl = head.lastIndexOf('\n');
  if (nl > max / 2) head = head.slice(0, nl + 1);
  return { head, cut: true };
}

/**
 * The header range of a window whose text block shows only its `head` (the window holds lines
 * `start`-`end`, or the last `windowLines` lines when `start` is null): `lines 1-608 (of a 1-8643
 * window) of 14330`, `lines 1-608, the last in part (…)` when the head ends inside a line, `part of
 * line 7 (…)` when it holds no whole line. The text block's footer continues right after the head.
 */
export function shownRange(head: string, start: number | null, end: number | null, windowLines: number, total: number | null): string {
  const nl = head.lastIndexOf('\n');
  const whole = nl === -1 ? 0 : lineCount(head.slice(0, nl + 1));
  const partial = head.length > nl + 1;
  const shown = whole + (partial ? 1 : 0);
  if (start === null) return `the first ${shown}${partial ? ' (the last in part)' : ''} of the last ${windowLines} lines`;
  const last = start + shown - 1;
  const lines = whole === 0 ? `part of line ${start}` : `lines ${start}-${last}${partial ? ', the last in part' : ''}`;
  return `${lines} (of a ${start}-${end ?? start} window)${total !== null ? ` of ${total}` : ''}`;
}

/** Lines of LF-normalised text (a final `\n` ends the last line, it does not open one). */
function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/**
 * Where a read continues right after `head`, the shown part of window `w` (`rest` is the window's
 * content after it): a line offset, and a `line_byte_offset` in the file's bytes (`unit`: UTF-8 for
 * UTF-8 and transcoded files, one byte a character for iso-8859-1) when the head ends inside a line.
 * Shown content is LF-normalised, so the part of a line after its last `\n` holds no terminator and
 * its length in `unit` is its length in the file. Null when no exact cursor exists (the head of a
 * tail window that starts inside its first line and ends inside it too).
 */
export function headContinuation(
  w: Pick<TextWindow, 'firstLine' | 'partialFirst'>,
  pos: { offset: number; lineByteOffset: number },
  head: string,
  rest: string,
  unit: 'utf8' | 'latin1',
): { offset: number; line_byte_offset: number } | null {
  const nl = head.lastIndexOf('\n');
  const linesDone = nl === -1 ? 0 : lineCount(head.slice(0, nl + 1));
  const partial = head.slice(nl + 1);
  const partialBytes = unit === 'utf8' ? Buffer.byteLength(partial) : partial.length;
  const within = linesDone === 0 ? pos.lineByteOffset + partialBytes : partialBytes;
  if (w.firstLine !== null) return { offset: w.firstLine + linesDone, line_byte_offset: within };
  // A tail window of a file too large to index starts at line pos.offset (negative) of the end.
  if (!w.partialFirst || pos.lineByteOffset > 0) return { offset: pos.offset + linesDone, line_byte_offset: within };
  // The end of a huge file, shown from inside a line: count the lines left from the end instead.
  if (linesDone === 0) return null;
  return { offset: -lineCount(partial + rest), line_byte_offset: partialBytes };
}
