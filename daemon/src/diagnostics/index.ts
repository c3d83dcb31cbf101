import { parseCargo } from './cargo.js';
import { parseEslint } from './eslint.js';
import { parseGcc } from './gcc.js';
import { parseGo } from './go.js';
import { parseNodeTest } from './node-test-runner.js';
import { parsePytest } from './pytest.js';
import { parseTsc } from './tsc.js';
import { DIAGNOSTIC_FORMATS, type Diagnostic, type DiagnosticFormat, type DiagnosticParser } from './types.js';

export * from './types.js';

const PARSERS: Readonly<Record<DiagnosticFormat, DiagnosticParser>> = {
  tsc: parseTsc,
  eslint: parseEslint,
  gcc: parseGcc,
  go: parseGo,
  cargo: parseCargo,
  pytest: parsePytest,
  'node-test': parseNodeTest,
};

/** Diagnostics returned per result at most. */
export const MAX_DIAGNOSTICS = 200;

/**
 * Parses rendered output into diagnostics (issue 5): with the given formats, or every parser
 * (`auto`) when the tool is not known. Duplicates (same file, line, column, message) are dropped;
 * at most {@link MAX_DIAGNOSTICS} are returned, errors first.
 */
export function parseDiagnostics(text: string, formats: readonly DiagnosticFormat[] | 'auto'): Diagnostic[] {
  const lines = text.split('\n');
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const f of formats === 'auto' ? DIAGNOSTIC_FORMATS : formats) {
    for (const d of PARSERS[f](lines)) {
      const key = `${d.file}\0${d.line}\0${d.column}\0${d.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(d);
    }
  }
  const rank = { error: 0, warning: 1, note: 2 } as const;
  return out.sort((a, b) => rank[a.severity] - rank[b.severity]).slice(0, MAX_DIAGNOSTICS);
}

const GUESSES: readonly [RegExp, DiagnosticFormat][] = [
  [/(^|[\s/])(tsc|vue-tsc)(\s|$)/, 'tsc'],
  [/(^|[\s/])eslint(\s|$)/, 'eslint'],
  [/(^|[\s/])(gcc|g\+\+|clang|clang\+\+|cc|c\+\+|make|cmake)(\s|$)/, 'gcc'],
  [/(^|[\s/])go\s+(build|test|vet|run|install)/, 'go'],
  [/(^|[\s/])(cargo|rustc)(\s|$)/, 'cargo'],
  [/(^|[\s/])(pytest|py\.test)(\s|$)|-m\s+pytest/, 'pytest'],
  [/node\s+(.*\s)?--test/, 'node-test'],
];

/** Formats suggested by a command text (`tsc -b` → tsc); `auto` when nothing is recognised. */
export function guessFormats(...commands: readonly string[]): DiagnosticFormat[] | 'auto' {
  const found = new Set<DiagnosticFormat>();
  for (const c of commands) for (const [re, f] of GUESSES) if (re.test(c)) found.add(f);
  return found.size > 0 ? [...found] : 'auto';
}
