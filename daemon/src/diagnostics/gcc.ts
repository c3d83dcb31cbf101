import { severityOf, type Diagnostic, type DiagnosticParser } from './types.js';

const LINE = /^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*?)(?: \[(-W[^\]]+)\])?$/;

/** GCC and Clang: `file.c:12:5: error: message [-Wflag]` (column optional). */
export const parseGcc: DiagnosticParser = (lines) => {
  const out: Diagnostic[] = [];
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m || m[1]!.startsWith(' ')) continue;
    out.push({
      file: m[1]!,
      line: Number(m[2]),
      column: m[3] ? Number(m[3]) : null,
      severity: severityOf(m[4]!),
      message: m[5]!,
      ...(m[6] ? { code: m[6] } : {}),
      format: 'gcc',
    });
  }
  return out;
};
