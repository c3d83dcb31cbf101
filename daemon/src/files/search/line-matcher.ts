import iconv from 'iconv-lite';
import type { ContextLine, SearchMatch } from './types.js';

/** Longest line text kept per match or context line, characters. */
export const LINE_TEXT_MAX_CHARS = 500;

/** Caps a line's text for a result. */
export function clipLine(text: string): string {
  return text.length > LINE_TEXT_MAX_CHARS ? `${text.slice(0, LINE_TEXT_MAX_CHARS)}…` : text;
}

/** Builds the per-line test of a query: literal (exact substring) or regex, with case option. */
export function lineTester(query: string, regex: boolean, caseSensitive: boolean): (line: string) => boolean {
  if (!regex) {
    if (caseSensitive) return (l) => l.includes(query);
    const q = query.toLowerCase();
    return (l) => l.toLowerCase().includes(q);
  }
  const re = new RegExp(query, caseSensitive ? 'u' : 'iu');
  return (l) => re.test(l);
}

/**
 * Text of a file as ripgrep searches it: a UTF-8 BOM dropped, UTF-16 with a BOM transcoded, other
 * bytes read as UTF-8 (invalid sequences become U+FFFD); null for binary content (a NUL byte).
 */
export function searchableText(bytes: Buffer): string | null {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return iconv.decode(bytes.subarray(2), 'utf-16le');
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return iconv.decode(bytes.subarray(2), 'utf-16be');
  if (bytes.indexOf(0) !== -1) return null;
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

/**
 * Attaches context to the matching lines of one file from the lines known around them (ripgrep
 * reports each line once: matches and context lines), so both engines build the same arrays.
 */
export function withContext(path: string, matchLines: readonly number[], known: ReadonlyMap<number, string>, context: number): SearchMatch[] {
  return matchLines.map((line) => {
    const before: ContextLine[] = [];
    const after: ContextLine[] = [];
    for (let l = line - context; l < line; l++) {
      const t = known.get(l);
      if (t !== undefined) before.push({ line: l, text: clipLine(t) });
    }
    for (let l = line + 1; l <= line + context; l++) {
      const t = known.get(l);
      if (t !== undefined) after.push({ line: l, text: clipLine(t) });
    }
    return { path, line, text: clipLine(known.get(line) ?? ''), before, after };
  });
}

/**
 * Searches one file's text line by line (lines end at `\n`; a `\r` before it is dropped, like
 * ripgrep with `--crlf`).
 */
export function matchText(path: string, text: string, test: (l: string) => boolean, context: number): SearchMatch[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const hits: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i]!;
    if (l.endsWith('\r')) lines[i] = l = l.slice(0, -1);
    if (test(l)) hits.push(i + 1);
  }
  if (hits.length === 0) return [];
  const known = new Map<number, string>();
  for (const h of hits) {
    for (let l = Math.max(1, h - context); l <= Math.min(lines.length, h + context); l++) known.set(l, lines[l - 1]!);
  }
  return withContext(path, hits, known, context);
}
