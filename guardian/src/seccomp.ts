import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tiocstiFilter } from '@holdfast/shared/seccomp';

/**
 * Writes {@link tiocstiFilter} to `<dir>/seccomp-tiocsti.bpf` (0600) and returns its path, or null
 * on an architecture without a table (the sandbox then runs without it; doctor says so).
 */
export function writeTiocstiFilter(dir: string): string | null {
  const prog = tiocstiFilter();
  if (!prog) return null;
  const file = join(dir, 'seccomp-tiocsti.bpf');
  writeFileSync(file, prog, { mode: 0o600 });
  return file;
}
