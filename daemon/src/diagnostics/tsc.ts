import { severityOf, type Diagnostic, type DiagnosticParser } from './types.js';

const PLAIN = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
const PRETTY = /^(.+?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$/;

/** TypeScript `tsc`: `file(12,5): error TS2322: …` and the `--pretty` form `file:12:5 - error TS2322: …`. */
export const parseTsc: DiagnosticParser = (lines) => {
  const out: Diagnostic[] = [];
  for (const line of lines) {
    const m = PLAIN.exec(line) ?? PRETTY.exec(line);
    if (m) out.push({ file: m[1]!.trim(), line: Number(m[2]), column: Number(m[3]), severity: severityOf(m[4]!), code: m[5]!, message: m[6]!, format: 'tsc' });
  }
  return out;
};
