import { severityOf, type Diagnostic, type DiagnosticParser } from './types.js';

const STYLISH_ROW = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}(\S+))?\s*$/;
const COMPACT = /^(.+?): line (\d+), col (\d+), (Error|Warning) - (.*?)(?: \((\S+)\))?$/;
const UNIX = /^(.+?):(\d+):(\d+): (.*) \[(Error|Warning)(?:\/(\S+))?\]$/;
const FILE_HEADER = /^(?:[A-Za-z]:)?[^\s:][^:]*\.[A-Za-z0-9]+$|^\/\S.*$/;

/**
 * ESLint: the default `stylish` formatter (a file path line, then `  12:5  error  message  rule`
 * rows), and the `compact` and `unix` formatters.
 */
export const parseEslint: DiagnosticParser = (lines) => {
  const out: Diagnostic[] = [];
  let file: string | null = null;
  for (const line of lines) {
    let m = COMPACT.exec(line);
    if (m) {
      out.push({ file: m[1]!, line: Number(m[2]), column: Number(m[3]), severity: severityOf(m[4]!), message: m[5]!, ...(m[6] ? { code: m[6] } : {}), format: 'eslint' });
      continue;
    }
    m = UNIX.exec(line);
    if (m) {
      out.push({ file: m[1]!, line: Number(m[2]), column: Number(m[3]), severity: severityOf(m[5]!), message: m[4]!, ...(m[6] ? { code: m[6] } : {}), format: 'eslint' });
      continue;
    }
    m = STYLISH_ROW.exec(line);
    if (m && file) {
      out.push({ file, line: Number(m[1]), column: Number(m[2]), severity: severityOf(m[3]!), message: m[4]!.trim(), ...(m[5] ? { code: m[5] } : {}), format: 'eslint' });
      continue;
    }
    if (line.trim() === '') continue;
    file = FILE_HEADER.test(line) && !/\s{2,}/.test(line) ? line.trim() : null;
  }
  return out;
};
