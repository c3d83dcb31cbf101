import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectTask, TaskDiscoverer } from './types.js';

const CONVENTIONS: readonly [string, string, string][] = [
  ['build', 'go build ./...', 'compile every package'],
  ['test', 'go test ./...', 'run every package test'],
  ['vet', 'go vet ./...', 'report suspicious constructs'],
];

/** `go.mod` → go's conventional commands over `./...`. */
export const discoverGoMod: TaskDiscoverer = (root) => {
  if (!existsSync(join(root, 'go.mod'))) return [];
  return CONVENTIONS.map(([name, command, description]): ProjectTask => ({ name, qualified: `go:${name}`, source: 'go', command, description, diagnostics: ['go'], cwd: '' }));
};
