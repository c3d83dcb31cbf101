import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from '../policy/commands.js';
import type { ProjectTask, TaskDiscoverer } from './types.js';

const FILES = ['GNUmakefile', 'makefile', 'Makefile'];
/** `target other: deps` (not `VAR := x`, not `%.o: %.c`, not `.PHONY:`), optional `## help` comment. */
const RULE = /^([A-Za-z0-9_][A-Za-z0-9_./ -]*?)\s*:(?![:=])(.*)$/;
const HELP = /##\s*(.*)$/;

/** Makefile targets (explicit rules of the top-level makefile) → `make TARGET`. */
export const discoverMakefile: TaskDiscoverer = (root, problems) => {
  const file = FILES.map((f) => join(root, f)).find((f) => existsSync(f));
  if (!file) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`${file}: ${(err as Error).message}`);
    return [];
  }
  const out: ProjectTask[] = [];
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('\t') || line.startsWith('#')) continue;
    const m = RULE.exec(line);
    if (!m) continue;
    const help = HELP.exec(m[2]!)?.[1]?.trim() ?? '';
    for (const target of m[1]!.split(/\s+/)) {
      if (target === '' || target.startsWith('.') || target.includes('%') || seen.has(target)) continue;
      seen.add(target);
      out.push({ name: target, qualified: `make:${target}`, source: 'make', command: `make ${shellQuote(target)}`, description: help || `make target ${target}`, diagnostics: 'auto', cwd: '' });
    }
  }
  return out;
};
