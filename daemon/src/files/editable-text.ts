import { diffArrays } from 'diff';
import { bomFor, decodeText, encodeText, isWide, type CharsetInfo } from './charset.js';
import { splitLineRecords, terminatorOf, type LineRecord } from './line-scan.js';
import { countTerminators, dominantTerminator } from './text-format.js';

/** A line terminator as text (`''` = the last line has none). */
export type Eol = '' | '\n' | '\r\n' | '\r';

/**
 * A text file opened for a logical edit (issue 4; field failures #10, #13): its lines as decoded
 * text plus, for every line, the exact bytes and terminator it had, so lines an edit does not touch
 * are written back byte for byte.
 */
export interface EditableText {
  bytes: Buffer;
  charset: CharsetInfo;
  records: LineRecord[];
  /** Decoded text of each line, without terminator. */
  texts: string[];
  eols: Eol[];
  finalNewline: boolean;
  /** Terminator given to lines an edit adds where no neighbour decides. */
  dominant: '\n' | '\r\n' | '\r';
}

/** A changed region: `oldCount` lines at `oldStart` became `newLines` (0-based indexes). */
export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newLines: string[];
}

/** The result of applying a new logical text to a file. */
export interface Rebuilt {
  bytes: Buffer;
  hunks: Hunk[];
  /** Σ max(removed, added) over hunks (the per-call limit counts these). */
  changedLines: number;
  oldLines: string[];
  newLines: string[];
  finalNewline: boolean;
}

/** Parses a text file's bytes (charset known, not binary). */
export function openEditable(bytes: Buffer, charset: CharsetInfo): EditableText {
  const unit = isWide(charset.charset) ? 2 : 1;
  const records = splitLineRecords(bytes, charset.bomBytes, unit, charset.charset === 'utf-16be');
  const texts = records.map((r) => decodeText(bytes.subarray(r.start, r.end), charset.charset));
  const eols = records.map((r) => terminatorOf(bytes, r, unit));
  const counts = countTerminators(bytes, charset);
  const last = eols[eols.length - 1];
  return { bytes, charset, records, texts, eols, finalNewline: last !== undefined && last !== '', dominant: dominantTerminator(counts) };
}

/** The logical text an edit works on: lines joined by `\n`, plus `\n` when the file ends with one. */
export function logicalText(t: EditableText): string {
  return t.texts.join('\n') + (t.finalNewline ? '\n' : '');
}

/** Every terminator (`\r\n`, `\r`) as `\n`: clients send text as they read it (LF-normalised). */
export function normaliseNewlines(s: string): string {
  return s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s;
}

/** Splits a logical text into lines and its final-newline state. */
export function splitLogical(text: string): { lines: string[]; final: boolean } {
  if (text === '') return { lines: [], final: false };
  const final = text.endsWith('\n');
  return { lines: (final ? text.slice(0, -1) : text).split('\n'), final };
}

type Op = { keep: number } | { hunk: Hunk };

/** Line-level changes between old and new lines: common prefix/suffix, Myers in between (bounded). */
function changes(oldL: string[], newL: string[], maxEditLength: number): Op[] {
  let p = 0;
  while (p < oldL.length && p < newL.length && oldL[p] === newL[p]) p++;
  let s = 0;
  while (s < oldL.length - p && s < newL.length - p && oldL[oldL.length - 1 - s] === newL[newL.length - 1 - s]) s++;
  const ops: Op[] = [];
  for (let i = 0; i < p; i++) ops.push({ keep: i });
  const oldMid = oldL.slice(p, oldL.length - s);
  const newMid = newL.slice(p, newL.length - s);
  if (oldMid.length > 0 || newMid.length > 0) {
    const parts = oldMid.length > 0 && newMid.length > 0 ? diffArrays(oldMid, newMid, { maxEditLength }) : undefined;
    if (!parts) {
      ops.push({ hunk: { oldStart: p, oldCount: oldMid.length, newStart: p, newLines: newMid } });
    } else {
      let o = p;
      let n = p;
      let cur: Hunk | null = null;
      for (const part of parts) {
        if (!part.added && !part.removed) {
          if (cur) ops.push({ hunk: cur });
          cur = null;
          for (let i = 0; i < part.value.length; i++) ops.push({ keep: o + i });
          o += part.value.length;
          n += part.value.length;
          continue;
        }
        cur ??= { oldStart: o, oldCount: 0, newStart: n, newLines: [] };
        if (part.removed) {
          cur.oldCount += part.value.length;
          o += part.value.length;
        } else {
          cur.newLines.push(...part.value);
          n += part.value.length;
        }
      }
      if (cur) ops.push({ hunk: cur });
    }
  }
  for (let i = oldL.length - s; i < oldL.length; i++) ops.push({ keep: i });
  return ops;
}

type OutLine = { orig: number; eol: Eol } | { text: string; eol: Eol };

/**
 * Writes a new logical text into the file's format: charset and BOM kept; lines that did not change
 * keep their exact bytes; new lines take the terminator of the line they replace (per line in
 * mixed files), else of their neighbour, else the file's dominant one; the final-newline state is
 * kept (an empty file takes the new text's).
 * @throws HoldfastError FORMAT_MISMATCH when the text cannot be encoded in the file's charset.
 */
export function rebuild(t: EditableText, newText: string, maxEditLength = 4000): Rebuilt {
  const { lines: newLines, final: givenFinal } = splitLogical(newText);
  const finalNewline = t.texts.length === 0 ? givenFinal : t.finalNewline;
  const ops = changes(t.texts, newLines, maxEditLength);
  const out: OutLine[] = [];
  const hunks: Hunk[] = [];
  let changedLines = 0;
  const dominantOr = (e: Eol | undefined): Eol => (e === undefined || e === '' ? t.dominant : e);
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if ('keep' in op) {
      out.push({ orig: op.keep, eol: t.eols[op.keep]! });
      continue;
    }
    const h = op.hunk;
    hunks.push(h);
    changedLines += Math.max(h.oldCount, h.newLines.length);
    const prevEol = out.length > 0 ? out[out.length - 1]!.eol : undefined;
    const next = ops[k + 1];
    const nextEol = next && 'keep' in next ? t.eols[next.keep] : undefined;
    h.newLines.forEach((text, j) => {
      const replaced = j < h.oldCount ? t.eols[h.oldStart + j] : h.oldCount > 0 ? t.eols[h.oldStart + h.oldCount - 1] : undefined;
      out.push({ text, eol: dominantOr(replaced ?? prevEol ?? nextEol) });
    });
  }
  // Terminators: every line but the last has one; the last has one iff the file ends with one.
  for (let i = 0; i < out.length; i++) {
    const line = out[i]!;
    if (i < out.length - 1) line.eol = dominantOr(line.eol);
    else line.eol = finalNewline ? dominantOr(line.eol) : '';
  }
  const cs = t.charset.charset;
  const eolBytes = new Map<Eol, Buffer>();
  const enc = (e: Eol): Buffer => {
    let b = eolBytes.get(e);
    if (!b) eolBytes.set(e, (b = encodeText(e, cs)));
    return b;
  };
  const parts: Buffer[] = [];
  if (t.charset.bom) parts.push(bomFor(cs));
  for (const line of out) {
    if ('orig' in line) {
      const r = t.records[line.orig]!;
      if (line.eol === t.eols[line.orig]) parts.push(t.bytes.subarray(r.start, r.next));
      else parts.push(t.bytes.subarray(r.start, r.end), enc(line.eol));
    } else {
      parts.push(encodeText(line.text, cs), enc(line.eol));
    }
  }
  return { bytes: Buffer.concat(parts), hunks, changedLines, oldLines: t.texts, newLines, finalNewline };
}
