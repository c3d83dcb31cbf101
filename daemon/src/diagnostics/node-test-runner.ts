import type { Diagnostic, DiagnosticParser } from './types.js';

const TAP_NOT_OK = /^\s*not ok \d+ - (.*)$/;
const TAP_LOCATION = /^\s*location: '(.+):(\d+):(\d+)'$/;
const TAP_ERROR = /^\s*error: (?:'(.*)'|"(.*)"|([^|>].*))$/;
const TAP_END = /^\s*\.\.\.$/;
const SPEC_AT = /^test at (.+):(\d+):(\d+)$/;
const SPEC_FAIL = /^\s*✖ (.+?)(?: \([\d.]+m?s\))?$/;

const path = (loc: string): string => (loc.startsWith('file://') ? decodeURIComponent(loc.slice(7)) : loc);

/**
 * Node's test runner (`node --test`): the TAP reporter (`not ok 3 - name` with a YAML block
 * holding `location:` and `error:`) and the spec reporter's "failing tests" list
 * (`test at file:12:3`, then `✖ name`, then the error line).
 */
export const parseNodeTest: DiagnosticParser = (lines) => {
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const notOk = TAP_NOT_OK.exec(line);
    if (notOk) {
      let loc: RegExpExecArray | null = null;
      let error: string | null = null;
      for (let j = i + 1; j < lines.length && !TAP_END.test(lines[j]!) && !TAP_NOT_OK.test(lines[j]!); j++) {
        loc ??= TAP_LOCATION.exec(lines[j]!);
        const e = TAP_ERROR.exec(lines[j]!);
        if (e && error === null) error = e[1] ?? e[2] ?? e[3] ?? null;
      }
      // Suites report `not ok` for their failing children: only tests with a location count.
      if (loc) out.push({ file: path(loc[1]!), line: Number(loc[2]), column: Number(loc[3]), severity: 'error', message: `${notOk[1]}${error ? `: ${error}` : ''}`, format: 'node-test' });
      continue;
    }
    const at = SPEC_AT.exec(line);
    if (at) {
      const name = SPEC_FAIL.exec(lines[i + 1] ?? '');
      const error = (lines[i + 2] ?? '').trim();
      out.push({ file: path(at[1]!), line: Number(at[2]), column: Number(at[3]), severity: 'error', message: `${name ? name[1] : 'test failed'}${error ? `: ${error}` : ''}`, format: 'node-test' });
    }
  }
  return out;
};
