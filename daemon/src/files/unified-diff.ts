import type { Hunk } from './editable-text.js';

/** Context lines around each change. */
const CONTEXT_LINES = 3;

/** Inputs of one file's diff. */
export interface FileDiffInput {
  oldPath: string | null;
  newPath: string | null;
  oldLines: readonly string[];
  newLines: readonly string[];
  hunks: readonly Hunk[];
  oldFinalNewline: boolean;
  newFinalNewline: boolean;
  /** Shown instead of hunks for non-text content. */
  binaryNote?: string;
}

/**
 * Renders a unified diff (LF-normalised text, `diff -u` style with `a/` `b/` prefixes) from
 * line hunks: overlapping contexts merge; `\ No newline at end of file` marks a missing final
 * newline on a changed last line.
 */
export function unifiedDiff(d: FileDiffInput): string {
  const head = `--- ${d.oldPath === null ? '/dev/null' : `a/${d.oldPath}`}\n+++ ${d.newPath === null ? '/dev/null' : `b/${d.newPath}`}\n`;
  if (d.binaryNote) return `${head}${d.binaryNote}\n`;
  if (d.hunks.length === 0) return d.oldPath !== d.newPath ? head : '';
  let out = head;
  let i = 0;
  while (i < d.hunks.length) {
    // group hunks whose contexts touch
    let j = i;
    while (j + 1 < d.hunks.length && d.hunks[j + 1]!.oldStart - (d.hunks[j]!.oldStart + d.hunks[j]!.oldCount) <= 2 * CONTEXT_LINES) j++;
    const first = d.hunks[i]!;
    const last = d.hunks[j]!;
    const oStart = Math.max(0, first.oldStart - CONTEXT_LINES);
    const oEnd = Math.min(d.oldLines.length, last.oldStart + last.oldCount + CONTEXT_LINES);
    const nStart = first.newStart - (first.oldStart - oStart);
    const lines: string[] = [];
    let o = oStart;
    let newCount = 0;
    const noEol = (idx: number, arr: readonly string[], final: boolean): boolean => idx === arr.length - 1 && !final;
    for (let k = i; k <= j; k++) {
      const h = d.hunks[k]!;
      while (o < h.oldStart) {
        lines.push(` ${d.oldLines[o]}`);
        if (noEol(o, d.oldLines, d.oldFinalNewline)) lines.push('\\ No newline at end of file');
        o++;
        newCount++;
      }
      for (let r = 0; r < h.oldCount; r++) {
        lines.push(`-${d.oldLines[o]}`);
        if (noEol(o, d.oldLines, d.oldFinalNewline)) lines.push('\\ No newline at end of file');
        o++;
      }
      h.newLines.forEach((l, a) => {
        lines.push(`+${l}`);
        if (noEol(h.newStart + a, d.newLines, d.newFinalNewline)) lines.push('\\ No newline at end of file');
      });
      newCount += h.newLines.length;
    }
    while (o < oEnd) {
      lines.push(` ${d.oldLines[o]}`);
      if (noEol(o, d.oldLines, d.oldFinalNewline)) lines.push('\\ No newline at end of file');
      o++;
      newCount++;
    }
    const oldCount = oEnd - oStart;
    out += `@@ -${oldCount === 0 ? oStart : oStart + 1},${oldCount} +${newCount === 0 ? nStart : nStart + 1},${newCount} @@\n${lines.join('\n')}\n`;
    i = j + 1;
  }
  return out;
}

/** The first `maxBytes` of a diff cut at a line end, and whether it was cut. */
export function previewOf(diff: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(diff) <= maxBytes) return { text: diff, truncated: false };
  const cut = Buffer.from(diff).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD*$/, '');
  const nl = cut.lastIndexOf('\n');
  return { text: nl > 0 ? cut.slice(0, nl + 1) : cut, truncated: true };
}
