import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { guessFormats } from '../diagnostics/index.js';
import { shellQuote } from '../policy/commands.js';
import type { ProjectTask, TaskDiscoverer } from './types.js';

/** Lock files that name the package manager, first match wins. */
const MANAGERS: readonly [string, string][] = [
  ['pnpm-lock.yaml', 'pnpm run'],
  ['yarn.lock', 'yarn run'],
  ['bun.lockb', 'bun run'],
  ['bun.lock', 'bun run'],
];

/** `package.json` scripts → `npm run NAME` (or pnpm/yarn/bun by lock file). */
export const discoverPackageJson: TaskDiscoverer = (root, problems) => {
  const file = join(root, 'package.json');
  if (!existsSync(file)) return [];
  let pkg: { scripts?: unknown };
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: unknown };
  } catch (err) {
    problems.push(`package.json: ${(err as Error).message}`);
    return [];
  }
  const scripts = pkg.scripts;
  if (!scripts || typeof scripts !== 'object') return [];
  const run = MANAGERS.find(([lock]) => existsSync(join(root, lock)))?.[1] ?? 'npm run';
  const out: ProjectTask[] = [];
  const bodies = scripts as Record<string, unknown>;
  for (const [name, body] of Object.entries(bodies)) {
    if (typeof body !== 'string') continue;
    // npm (and pnpm/yarn) also run pre<name> and post<name>: their bodies are judged too.
    const runs = [bodies[`pre${name}`], body, bodies[`post${name}`]].filter((b): b is string => typeof b === 'string');
    out.push({ name, qualified: `npm:${name}`, source: 'npm', command: `${run} ${shellQuote(name)}`, description: body, diagnostics: guessFormats(body), cwd: '', runs });
  }
  return out;
};
