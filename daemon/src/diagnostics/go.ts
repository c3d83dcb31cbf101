import type { Diagnostic, DiagnosticParser } from './types.js';

const BUILD = /^(?:\.\/)?(\S+?\.go):(\d+)(?::(\d+))?: (.*)$/;
const TEST = /^\s+(\S+?\.go):(\d+): (.*)$/;

/**
 * Go: compiler and `go vet` lines `./main.go:12:5: undefined: x`, and `go test` failures
 * reported by `t.Error*` as indented `    main_test.go:12: message`.
 */
export const parseGo: DiagnosticParser = (lines) => {
  const out: Diagnostic[] = [];
  for (const line of lines) {
    let m = BUILD.exec(line);
    if (m) {
      out.push({ file: m[1]!, line: Number(m[2]), column: m[3] ? Number(m[3]) : null, severity: 'error', message: m[4]!, format: 'go' });
      continue;
    }
    m = TEST.exec(line);
    if (m) out.push({ file: m[1]!, line: Number(m[2]), column: null, severity: 'error', message: m[3]!, format: 'go' });
  }
  return out;
};
