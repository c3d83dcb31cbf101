import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DiagnosticFormat } from '../diagnostics/index.js';
import type { ProjectTask, TaskDiscoverer, TaskSource } from './types.js';

/**
 * A discoverer for a toolchain with conventional commands: when `marker` exists at the project
 * root, every `[name, command, description]` is a task of `source`, parsed with `formats`.
 */
export function conventionDiscoverer(marker: string, source: TaskSource, formats: DiagnosticFormat[], tasks: readonly (readonly [string, string, string])[]): TaskDiscoverer {
  return (root) => {
    if (!existsSync(join(root, marker))) return [];
    return tasks.map(([name, command, description]): ProjectTask => ({ name, qualified: `${source}:${name}`, source, command, description, diagnostics: formats, cwd: '' }));
  };
}
