import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectTask, TaskDiscoverer } from './types.js';

/** `pyproject.toml` mentioning pytest (a dependency or `[tool.pytest…]`) → `test`: `python3 -m pytest`. */
export const discoverPyproject: TaskDiscoverer = (root, problems) => {
  const file = join(root, 'pyproject.toml');
  if (!existsSync(file)) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`pyproject.toml: ${(err as Error).message}`);
    return [];
  }
  if (!/pytest/.test(text)) return [];
  return [{ name: 'test', qualified: 'python:test', source: 'python', command: 'python3 -m pytest', description: 'run the tests with pytest', diagnostics: ['pytest'], cwd: '' }];
};
