import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Ignore files read in every folder, lowest precedence first (ripgrep's set without VCS excludes). */
export const IGNORE_FILE_NAMES = ['.gitignore', '.ignore', '.rgignore'] as const;

/** The ignore rules of one folder, or null when it has none. */
export function loadIgnoreRules(dirAbs: string): Ignore | null {
  let ig: Ignore | null = null;
  for (const name of IGNORE_FILE_NAMES) {
    let text: string;
    try {
      text = readFileSync(join(dirAbs, name), 'utf8');
    } catch {
      continue;
    }
    ig ??= ignore({ allowRelativePaths: true });
    ig.add(text);
  }
  return ig;
}

/** One folder's rules and where they apply from. */
export interface IgnoreFrame {
  /** Workspace-relative folder ('' = root). */
  dir: string;
  rules: Ignore;
}

/**
 * Gitignore decision for a path given the frames of its ancestors (outermost first): the deepest
 * frame with an opinion wins (`!negations` re-include).
 */
export function isIgnored(frames: readonly IgnoreFrame[], rel: string, isDir: boolean): boolean {
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i]!;
    const sub = f.dir === '' ? rel : rel.slice(f.dir.length + 1);
    const r = f.rules.test(isDir ? `${sub}/` : sub);
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return false;
}

/** Frames of the folders from the workspace root down to (excluding) `scope`. */
export function framesAbove(root: string, scope: string): IgnoreFrame[] {
  const frames: IgnoreFrame[] = [];
  const parts = scope === '' ? [] : scope.split('/');
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const rules = loadIgnoreRules(dir === '' ? root : join(root, dir));
    if (rules) frames.push({ dir, rules });
  }
  return frames;
}
