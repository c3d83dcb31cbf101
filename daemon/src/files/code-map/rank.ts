import type { CodeSymbol } from './types.js';

/** One parsed file as the ranking sees it. */
export interface RankInput {
  path: string;
  defs: readonly CodeSymbol[];
  refs: readonly (readonly [string, number])[];
}

/** A name defined in more files than this says nothing about which one is meant (`get`, `run`). */
const MAX_DEFINING_FILES = 20;

/**
 * How much one name says about the file it points to (aider's weights): long compound names
 * (`parseShell`, `read_source`, ≥ 8 characters) ×10, private-looking ones (`_x`) ×0.1, names
 * defined in more than five files ×0.1.
 */
function nameWeight(name: string, definers: number): number {
  let w = 1;
  if (name.length >= 8 && (/[a-z][A-Z]/.test(name) || name.includes('_') || name.includes('-'))) w *= 10;
  if (name.startsWith('_')) w *= 0.1;
  if (definers > 5) w *= 0.1;
  return w;
}
const DAMPING = 0.85;
const ITERATIONS = 30;

/**
 * Ranks files by how much the rest of the code leans on them (issue 17, the ranked map; the idea of
 * aider's repository map): an edge a → b for every name a references that b defines, weighted
 * {@link nameWeight} × √(uses) / (files defining the name), then PageRank (damping 0.85, 30 rounds, dangling mass
 * spread evenly). Returns one score per input (summing to 1) and, per file, how many other files
 * reference each of its definition names.
 */
export function rankFiles(files: readonly RankInput[]): { ranks: number[]; usedBy: Map<string, number>[] } {
  const n = files.length;
  const definedIn = new Map<string, number[]>();
  files.forEach((f, i) => {
    for (const name of new Set(f.defs.map((d) => d.name))) {
      const list = definedIn.get(name);
      if (list) list.push(i);
      else definedIn.set(name, [i]);
    }
  });
  const out: Map<number, number>[] = files.map(() => new Map());
  const usedBy: Map<string, number>[] = files.map(() => new Map());
  files.forEach((f, a) => {
    for (const [name, count] of f.refs) {
      const targets = definedIn.get(name);
      if (!targets || targets.length > MAX_DEFINING_FILES) continue;
      const w = (nameWeight(name, targets.length) * Math.sqrt(count)) / targets.length;
      for (const b of targets) {
        if (b === a) continue;
        out[a]!.set(b, (out[a]!.get(b) ?? 0) + w);
        usedBy[b]!.set(name, (usedBy[b]!.get(name) ?? 0) + 1);
      }
    }
  });
  if (n === 0) return { ranks: [], usedBy };
  const totals = out.map((m) => [...m.values()].reduce((s, x) => s + x, 0));
  let rank = new Array<number>(n).fill(1 / n);
  for (let it = 0; it < ITERATIONS; it++) {
    const next = new Array<number>(n).fill(0);
    let dangling = 0;
    for (let a = 0; a < n; a++) {
      if (totals[a] === 0) {
        dangling += rank[a]!;
        continue;
      }
      for (const [b, w] of out[a]!) next[b]! += (DAMPING * rank[a]! * w) / totals[a]!;
    }
    const base = (1 - DAMPING) / n + (DAMPING * dangling) / n;
    rank = next.map((x) => x + base);
  }
  const sum = rank.reduce((s, x) => s + x, 0);
  return { ranks: rank.map((x) => x / sum), usedBy };
}

/**
 * The symbols a map shows for one file, at most `max`, in priority order: the most referenced from
 * other files first, top-level definitions before members on ties, then by line. (A page may keep
 * only a prefix of them to stay within its byte budget; it shows them in line order.)
 */
export function pickSymbols<T extends CodeSymbol>(defs: readonly T[], usedBy: ReadonlyMap<string, number>, max: number): T[] {
  const scored = defs.map((d, i) => ({ d, i, score: (usedBy.get(d.name) ?? 0) * 2 + (d.container === null ? 1 : 0) }));
  scored.sort((x, y) => y.score - x.score || x.i - y.i);
  return scored.slice(0, max).map((s) => s.d);
}
