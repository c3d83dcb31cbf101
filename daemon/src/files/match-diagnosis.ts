import { diffChars } from 'diff';

/** A place in the file that looks like what a replacement wanted to match. */
export interface MatchCandidate {
  /** 1-based first line of the candidate block. */
  line: number;
  text: string;
  /** 0..1, from a character-level diff (1 = identical). */
  similarity: number;
}

/** What went wrong with a match, for the model to fix its next call (issue 4). */
export interface MatchDiagnosis {
  candidates: MatchCandidate[];
  /** Character-level diff of the match against the closest candidate: `[-in match-]{+in file+}`. */
  char_diff: string | null;
  /** A short human explanation (whitespace only, quotes, line endings, indentation). */
  note: string | null;
}

/** Windows scored with a character diff at most (the rest are ranked by a cheap line vote). */
const MAX_SCORED_WINDOWS = 24;
/** Files with more lines than this skip the fallback similarity scan. */
const FALLBACK_SCAN_MAX_LINES = 50_000;
/** Longest char_diff returned, characters. */
const CHAR_DIFF_MAX_CHARS = 2000;

function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length + b.length === 0) return 1;
  const parts = diffChars(a, b, { maxEditLength: 2 * (a.length + b.length) });
  if (!parts) return 0;
  let common = 0;
  for (const p of parts) if (!p.added && !p.removed) common += p.value.length;
  return (2 * common) / (a.length + b.length);
}

function bigrams(s: string): Set<string> {
  const t = s.trim();
  const out = new Set<string>();
  for (let i = 0; i < t.length - 1; i++) out.add(t.slice(i, i + 2));
  return out;
}

function dice(a: Set<string>, b: Set<string>): number {
  if (a.size + b.size === 0) return 0;
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return (2 * n) / (a.size + b.size);
}

/** Renders a char diff of `match` → `found` as `[-only in match-]{+only in file+}`. */
export function charDiff(match: string, found: string): string {
  const parts = diffChars(match, found);
  let s = '';
  for (const p of parts) s += p.removed ? `[-${p.value}-]` : p.added ? `{+${p.value}+}` : p.value;
  return s.length > CHAR_DIFF_MAX_CHARS ? `${s.slice(0, CHAR_DIFF_MAX_CHARS)}…` : s;
}

function explain(match: string, found: string): string | null {
  const squash = (s: string): string => s.replace(/\s+/g, '');
  if (squash(match) === squash(found)) return 'only whitespace differs (indentation, spaces or blank lines): copy the text exactly as read';
  const plainQuotes = (s: string): string => s.replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"');
  if (plainQuotes(match) === plainQuotes(found)) return 'only quote characters differ (typographic vs straight quotes)';
  if (match.replace(/\\n/g, '\n') === found || match === found.replace(/\\n/g, '\n')) return 'a literal backslash-n and a line break are confused: the file has exactly what read returned';
  return null;
}

/**
 * Finds the blocks of `lines` closest to `match` (which did not occur): windows of as many lines
 * as the match, ranked by how many of its trimmed lines they contain, then by a character diff;
 * returns the best few and a char-level diff against the closest (issue 4).
 */
export function diagnoseMissingMatch(lines: readonly string[], match: string, max = 3): MatchDiagnosis {
  const mLines = match.replace(/\n$/, '').split('\n');
  const k = Math.max(1, mLines.length);
  const starts = new Map<number, number>();
  const byTrim = new Map<string, number[]>();
  lines.forEach((l, i) => {
    const t = l.trim();
    if (t === '') return;
    let a = byTrim.get(t);
    if (!a) byTrim.set(t, (a = []));
    a.push(i);
  });
  mLines.forEach((ml, j) => {
    const t = ml.trim();
    if (t === '') return;
    for (const i of byTrim.get(t) ?? []) {
      const s = i - j;
      if (s >= 0 && s + k <= Math.max(lines.length, k)) starts.set(s, (starts.get(s) ?? 0) + 1);
    }
  });
  let ranked = [...starts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_SCORED_WINDOWS).map(([s]) => s);
  if (ranked.length === 0 && lines.length <= FALLBACK_SCAN_MAX_LINES) {
    const probe = mLines.find((l) => l.trim() !== '') ?? mLines[0]!;
    const pb = bigrams(probe);
    const pj = mLines.indexOf(probe);
    ranked = lines
      .map((l, i) => [i - pj, dice(pb, bigrams(l))] as const)
      .filter(([s, score]) => s >= 0 && score > 0.3)
      .sort((a, b) => b[1] - a[1])
      .slice(0, MAX_SCORED_WINDOWS)
      .map(([s]) => s);
  }
  const candidates = ranked
    .map((s) => {
      const text = lines.slice(s, s + k).join('\n');
      return { line: s + 1, text, similarity: Math.round(similarity(match.replace(/\n$/, ''), text) * 1000) / 1000 };
    })
    .sort((a, b) => b.similarity - a.similarity || a.line - b.line)
    .slice(0, max);
  const best = candidates[0];
  return {
    candidates,
    char_diff: best ? charDiff(match.replace(/\n$/, ''), best.text) : null,
    note: best ? explain(match.replace(/\n$/, ''), best.text) : null,
  };
}

/** 1-based line numbers where each occurrence of `match` starts in `text`. */
export function occurrenceLines(text: string, match: string, max = 20): number[] {
  const out: number[] = [];
  let line = 1;
  let scanned = 0;
  for (let i = text.indexOf(match); i !== -1 && out.length < max; i = text.indexOf(match, i + 1)) {
    for (let j = text.indexOf('\n', scanned); j !== -1 && j < i; j = text.indexOf('\n', j + 1)) {
      line++;
      scanned = j + 1;
    }
    out.push(line);
  }
  return out;
}
