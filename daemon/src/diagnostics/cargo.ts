import { severityOf, type Diagnostic, type DiagnosticParser } from './types.js';

const HEADER = /^(error|warning)(?:\[(\w+)\])?: (.*)$/;
const ARROW = /^\s*--> (.+?):(\d+):(\d+)$/;
/** Lines after a header within which its `-->` location must appear. */
const LOOKAHEAD_LINES = 3;

/**
 * Cargo and rustc: `error[E0308]: mismatched types` followed by ` --> src/main.rs:4:18`.
 * Headers without a location (`error: could not compile …`) are summaries and are skipped.
 */
export const parseCargo: DiagnosticParser = (lines) => {
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const h = HEADER.exec(lines[i]!);
    if (!h) continue;
    for (let j = i + 1; j <= i + LOOKAHEAD_LINES && j < lines.length; j++) {
      const a = ARROW.exec(lines[j]!);
      if (a) {
        out.push({ file: a[1]!, line: Number(a[2]), column: Number(a[3]), severity: severityOf(h[1]!), message: h[3]!, ...(h[2] ? { code: h[2] } : {}), format: 'cargo' });
        break;
      }
      if (HEADER.test(lines[j]!)) break;
    }
  }
  return out;
};
