import { DIAGNOSTIC_FORMATS, type DiagnosticFormat } from '../diagnostics/index.js';
import type { ProjectConfig } from '../policy/project-config.js';
import type { ProjectTask } from './types.js';

/**
 * Tasks declared in the project's `.holdfast.yaml` (issue 5), the first source for plain names:
 *
 * ```yaml
 * tasks:
 *   deploy: ./scripts/deploy.sh staging      # a command line
 *   lint:
 *     command: eslint .
 *     description: Lint everything
 *     diagnostics: eslint                     # a format, a list of formats, or auto
 *     cwd: packages/web                       # relative to the project root
 * ```
 * Entries that do not fit are reported in `problems` and skipped.
 */
export function discoverHoldfastYaml(config: ProjectConfig, problems: string[]): ProjectTask[] {
  const out: ProjectTask[] = [];
  for (const [name, raw] of Object.entries(config.tasks ?? {})) {
    const where = `.holdfast.yaml: tasks.${name}`;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(name)) {
      problems.push(`${where}: names are letters, digits, . _ : -`);
      continue;
    }
    const entry = typeof raw === 'string' ? { command: raw } : raw;
    if (!entry || typeof entry !== 'object' || typeof (entry as { command?: unknown }).command !== 'string') {
      problems.push(`${where}: give a command line, or {command, description?, diagnostics?, cwd?}`);
      continue;
    }
    const e = entry as { command: string; description?: unknown; diagnostics?: unknown; cwd?: unknown };
    const diagnostics = formats(e.diagnostics);
    if (diagnostics === null) {
      problems.push(`${where}.diagnostics: one of ${DIAGNOSTIC_FORMATS.join(', ')}, a list of them, or auto`);
      continue;
    }
    const cwd = typeof e.cwd === 'string' ? e.cwd : '';
    if (cwd.startsWith('/') || cwd.split('/').includes('..')) {
      problems.push(`${where}.cwd: a folder inside the project`);
      continue;
    }
    out.push({
      name,
      qualified: `holdfast:${name}`,
      source: 'holdfast',
      command: e.command,
      description: typeof e.description === 'string' ? e.description : e.command,
      diagnostics,
      cwd,
    });
  }
  return out;
}

function formats(v: unknown): DiagnosticFormat[] | 'auto' | null {
  if (v === undefined || v === 'auto') return 'auto';
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || !list.every((f) => (DIAGNOSTIC_FORMATS as readonly unknown[]).includes(f))) return null;
  return list as DiagnosticFormat[];
}
