import { lstatSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { openDirBeneath, type DirHandle } from '../beneath.js';
import { GlobFilter } from './glob-filter.js';
import { framesAbove, isIgnored, loadIgnoreRules, type IgnoreFrame } from './ignore-rules.js';
import { comparePaths } from './path-order.js';

/** How the walk decides what to visit (the same rules the ripgrep engine is run with). */
export interface WalkOptions {
  root: string;
  scope: string;
  include: string[];
  exclude: string[];
  deny: RegExp[];
  /** Larger files are skipped (Infinity: no size check, no stat). */
  maxFileBytes: number;
}

function denied(deny: readonly RegExp[], rel: string): boolean {
  for (const re of deny) if (re.test(rel)) return true;
  return false;
}

/**
 * Walks the files under a scope in path order (each folder's entries sorted by name), synchronously
 * — it runs inside the search worker, never on the daemon's event loop. Like the ripgrep engine:
 * hidden files included, `.git` folders skipped, `.gitignore`/`.ignore`/`.rgignore` of every folder
 * from the workspace root down respected, symlinks not followed, files over `maxFileBytes` skipped,
 * policy-denied paths pruned. Yields workspace-relative paths; stop early by returning from the loop.
 *
 * Each folder is opened from the root without following a symlink at any step (`openDirBeneath`)
 * and listed through that descriptor, so a folder swapped for a symlink during the walk is skipped,
 * never listed through (docs/security.md). Callers read the files with `readFileBeneath`.
 */
export function* walkFiles(o: WalkOptions): Generator<string> {
  const globs = new GlobFilter(o.include, o.exclude);
  const prefix = o.scope === '' ? '' : `${o.scope}/`;
  const scopeAbs = o.scope === '' ? o.root : join(o.root, o.scope);
  let st;
  try {
    st = statSync(scopeAbs);
  } catch {
    return;
  }
  if (st.isFile()) {
    const name = o.scope.slice(o.scope.lastIndexOf('/') + 1);
    if (!denied(o.deny, o.scope) && st.size <= o.maxFileBytes && globs.allowsFile(name, false)) yield o.scope;
    return;
  }
  const frames: IgnoreFrame[] = framesAbove(o.root, o.scope);
  yield* walkDir(o, globs, frames, o.scope, prefix);
}

function* walkDir(o: WalkOptions, globs: GlobFilter, frames: IgnoreFrame[], dir: string, scopePrefix: string): Generator<string> {
  const abs = dir === '' ? o.root : join(o.root, dir);
  let h: DirHandle;
  try {
    h = openDirBeneath(o.root, abs);
  } catch {
    return; // gone, or swapped for a symlink or a file since its parent was listed
  }
  let entries: Dirent[];
  let own: ReturnType<typeof loadIgnoreRules>;
  try {
    // Listed through the descriptor: the folder that was opened, wherever it is now.
    own = loadIgnoreRules(`/proc/self/fd/${h.fd}`);
    entries = readdirSync(`/proc/self/fd/${h.fd}`, { withFileTypes: true });
  } catch {
    h.close();
    return;
  }
  const here = own ? [...frames, { dir, rules: own }] : frames;
  const names = entries.map((e) => e.name).sort((a, b) => comparePaths(a, b));
  const byName = new Map(entries.map((e) => [e.name, e]));
  const relOf = (name: string): string => (dir === '' ? name : `${dir}/${name}`);
  // Files that pass the filters, sized through the open folder (only those: one lstat each)
  // before it is closed — the walk then yields without holding a descriptor across yields.
  const files = new Set<string>();
  for (const name of names) {
    const e = byName.get(name)!;
    if (!e.isFile() || name === '.git') continue;
    const rel = relOf(name);
    if (denied(o.deny, rel) || isIgnored(here, rel, false) || !globs.allowsFile(rel.slice(scopePrefix.length), false)) continue;
    if (Number.isFinite(o.maxFileBytes)) {
      try {
        if (lstatSync(h.entry(name)).size > o.maxFileBytes) continue;
      } catch {
        continue; // gone
      }
    }
    files.add(name);
  }
  h.close();
  for (const name of names) {
    const e = byName.get(name)!;
    const rel = relOf(name);
    if (name === '.git') continue; // the folder, or the file a worktree or submodule has (ripgrep: -g '!.git')
    if (e.isDirectory()) {
      if (denied(o.deny, `${rel}/`) || isIgnored(here, rel, true) || globs.excludesDir(rel.slice(scopePrefix.length))) continue;
      yield* walkDir(o, globs, here, rel, scopePrefix);
    } else if (files.has(name)) {
      yield rel;
    }
  }
}
