import type { Diagnostic, DiagnosticParser } from './types.js';

const SECTION = /^_{3,} (.+?) _{3,}$/;
const E_LINE = /^E\s+(.*)$/;
const LOCATION = /^(\S+?\.py):(\d+): (\w+)$/;
const SUMMARY = /^(FAILED|ERROR) (\S+?\.py)(?:::(\S+))?(?: - (.*))?$/;

/**
 * pytest: each failure section ends with `path.py:12: ExceptionType`, after `E   …` lines that
 * explain it; the short summary (`FAILED path.py::test - message`) adds failures that have no
 * located traceback (line unknown).
 */
export const parsePytest: DiagnosticParser = (lines) => {
  const out: Diagnostic[] = [];
  let explanation: string | null = null;
  const located = new Set<string>();
  for (const line of lines) {
    if (SECTION.test(line)) {
      explanation = null;
      continue;
    }
    const e = E_LINE.exec(line);
    if (e) {
      explanation ??= e[1]!.trim();
      continue;
    }
    const loc = LOCATION.exec(line);
    if (loc) {
      out.push({ file: loc[1]!, line: Number(loc[2]), column: null, severity: 'error', message: explanation ?? loc[3]!, code: loc[3]!, format: 'pytest' });
      located.add(loc[1]!);
      explanation = null;
      continue;
    }
    const s = SUMMARY.exec(line);
    if (s && !located.has(s[2]!)) {
      out.push({ file: s[2]!, line: null, column: null, severity: 'error', message: `${s[3] ?? ''}${s[4] ? ` - ${s[4]}` : ''}`.trim() || s[1]!, format: 'pytest' });
    }
  }
  return out;
};
