import { existsSync } from 'node:fs';
import { join } from 'node:path';

const RANGE_SUFFIX = /^(.*):(\d+)(?:-(\d+))?$/;

/**
 * Splits `path:10-40` / `path:10` into a path and a 1-based line range (issue 4), unless a file
 * with that literal name exists.
 */
export function splitPathRange(root: string, path: string): { path: string; start_line?: number; end_line?: number } {
  const m = RANGE_SUFFIX.exec(path);
  if (!m || m[1] === '' || existsSync(join(root, path))) return { path };
  const start = Number(m[2]);
  const end = m[3] !== undefined ? Number(m[3]) : start;
  return { path: m[1]!, start_line: start, end_line: end };
}
