import { HoldfastError } from '@holdfast/shared/errors';
import { normaliseNewlines } from './editable-text.js';
import { diagnoseMissingMatch, occurrenceLines } from './match-diagnosis.js';

/** One exact replacement (issue 4 `replacements[]`). */
export interface Replacement {
  match: string;
  replacement: string;
}

/** One line patch (issue 4 `line_patch[]`): lines start..end (1-based, inclusive) of the base become `content`. */
export interface LinePatch {
  start_line: number;
  end_line: number;
  content: string;
}

/**
 * Applies exact replacements in order on the logical (LF) text. Each match must occur exactly
 * once in the text as it is at that step; no whitespace, quote or escape is interpreted (a Markdown
 * table's double spaces and a source line's literal `\n` match only themselves).
 * @throws HoldfastError MATCH_NOT_FOUND (details: candidates, char_diff) or MATCH_AMBIGUOUS (details: lines).
 */
export function applyReplacements(text: string, replacements: readonly Replacement[], path: string): string {
  let out = text;
  replacements.forEach((rep, i) => {
    const m = normaliseNewlines(rep.match);
    const at = out.indexOf(m);
    if (at === -1) {
      const d = diagnoseMissingMatch(out.split('\n'), m);
      const where = d.candidates[0] ? ` The closest text is at line ${d.candidates[0].line} (similarity ${d.candidates[0].similarity}): ${d.char_diff}` : '';
      throw new HoldfastError('MATCH_NOT_FOUND', `replacements[${i}].match does not occur in ${path}.${where}${d.note ? ` (${d.note})` : ''}`, {
        details: { path, replacement_index: i, ...d },
      });
    }
    if (out.indexOf(m, at + 1) !== -1) {
      const lines = occurrenceLines(out, m);
      throw new HoldfastError('MATCH_AMBIGUOUS', `replacements[${i}].match occurs ${lines.length >= 20 ? '20 or more' : lines.length} times in ${path} (lines ${lines.join(', ')}); include more surrounding text so it is unique, or use line_patch`, {
        details: { path, replacement_index: i, lines },
      });
    }
    out = out.slice(0, at) + normaliseNewlines(rep.replacement) + out.slice(at + m.length);
  });
  return out;
}

/** The lines of a patch's `content` (`''` = no lines, one trailing newline is a terminator). */
export function patchLines(content: string): string[] {
  const c = normaliseNewlines(content);
  if (c === '') return [];
  return (c.endsWith('\n') ? c.slice(0, -1) : c).split('\n');
}

/**
 * Applies line patches, all numbered against the base lines (order of the array does not matter;
 * they must not overlap). `end_line = start_line - 1` inserts before `start_line`.
 * @returns the new lines.
 * @throws HoldfastError BAD_REQUEST for ranges outside the file or overlapping ones.
 */
export function applyLinePatches(lines: readonly string[], patches: readonly LinePatch[], path: string): string[] {
  const n = lines.length;
  const sorted = patches.map((p, i) => ({ ...p, i })).sort((a, b) => a.start_line - b.start_line || a.end_line - b.end_line || a.i - b.i);
  let prevEnd = 0;
  for (const p of sorted) {
    if (p.start_line > n + 1 || p.end_line > n || p.end_line < p.start_line - 1) {
      throw new HoldfastError('BAD_REQUEST', `line_patch[${p.i}] (${p.start_line}-${p.end_line}) is outside ${path}, which has ${n} lines; end_line must be between start_line-1 (insert) and ${n}`, {
        details: { path, lines: n },
      });
    }
    if (p.start_line <= prevEnd) {
      throw new HoldfastError('BAD_REQUEST', `line_patch[${p.i}] overlaps another patch; give non-overlapping ranges of the base file`, { details: { path } });
    }
    prevEnd = Math.max(prevEnd, p.end_line);
  }
  const out: string[] = [];
  let next = 1;
  for (const p of sorted) {
    while (next < p.start_line) out.push(lines[next++ - 1]!);
    out.push(...patchLines(p.content));
    next = Math.max(next, p.end_line + 1);
  }
  while (next <= n) out.push(lines[next++ - 1]!);
  return out;
}
