/**
 * Compiler and test-runner diagnostics (issue 5 `task`): what `execute` returns as
 * `diagnostics[]` after a project task, parsed from the task's rendered output text.
 */

/** Output formats with a parser (one file each in this folder). */
export const DIAGNOSTIC_FORMATS = ['tsc', 'eslint', 'gcc', 'go', 'cargo', 'pytest', 'node-test'] as const;
export type DiagnosticFormat = (typeof DIAGNOSTIC_FORMATS)[number];

/** One problem: where (1-based line and column; null when the tool does not say), how bad, what. */
export interface Diagnostic {
  file: string;
  line: number | null;
  column: number | null;
  severity: 'error' | 'warning' | 'note';
  message: string;
  /** Tool-specific code (`TS2322`, `E0308`, an eslint rule), when given. */
  code?: string;
  format: DiagnosticFormat;
}

/** A parser: rendered output lines (ANSI already removed) → diagnostics in output order. */
export type DiagnosticParser = (lines: readonly string[]) => Diagnostic[];

/** `error`/`warning`/`note` from a tool's word for it. */
export function severityOf(word: string): Diagnostic['severity'] {
  const w = word.toLowerCase();
  if (w.includes('warn')) return 'warning';
  if (w === 'note' || w === 'message' || w === 'info' || w === 'help') return 'note';
  return 'error';
}
