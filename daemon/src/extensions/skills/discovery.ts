import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { parseSkillFile, type SkillManifest } from './skill-file.js';

/** Where a skill was found (issue 13), in order of precedence. */
export type SkillSource = 'home' | 'workspace/.holdfast/skills' | 'workspace/.claude/skills';

/** A folder that may hold skills. */
export interface SkillRoot {
  dir: string;
  source: SkillSource;
}

/** One skill found (valid or not). */
export interface SkillEntry {
  name: string;
  /** The skill folder (absolute). */
  dir: string;
  source: SkillSource;
  kind: 'document' | 'executable' | 'invalid';
  manifest: SkillManifest | null;
  /** Why it is invalid. */
  error: string | null;
}

/** One file of a skill folder. */
export interface SkillFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  bytes: number;
  sha256: string;
}

/** Limits of one skill folder (what `describe` lists and the revision hashes). */
export const SkillLimits = {
  MAX_FILES: 1000,
  MAX_TOTAL_BYTES: 32 * 1024 * 1024,
} as const;

/**
 * Skill folders of a session (issue 13): `<home>/skills/`, then the workspace's
 * `.holdfast/skills/`, then its `.claude/skills/`. Each child folder holding a `SKILL.md` is a
 * skill; on a name clash the first root wins (a cloned repository cannot replace the user's own).
 */
export function skillRoots(homeSkillsDir: string, workspaceRoot: string): SkillRoot[] {
  return [
    { dir: homeSkillsDir, source: 'home' },
    { dir: join(workspaceRoot, '.holdfast', 'skills'), source: 'workspace/.holdfast/skills' },
    { dir: join(workspaceRoot, '.claude', 'skills'), source: 'workspace/.claude/skills' },
  ];
}

/** Every skill of `roots`, sorted by name (shadowed duplicates left out). */
export function discoverSkills(roots: SkillRoot[]): SkillEntry[] {
  const byName = new Map<string, SkillEntry>();
  for (const root of roots) {
    let names: string[];
    try {
      names = readdirSync(root.dir).sort();
    } catch {
      continue;
    }
    for (const folder of names) {
      if (folder.startsWith('.')) continue;
      const dir = join(root.dir, folder);
      let bytes: Buffer;
      try {
        if (!statSync(dir).isDirectory()) continue;
        bytes = readFileSync(join(dir, 'SKILL.md'));
      } catch {
        continue;
      }
      let entry: SkillEntry;
      try {
        const manifest = parseSkillFile(bytes, folder);
        entry = { name: manifest.name, dir, source: root.source, kind: manifest.entry ? 'executable' : 'document', manifest, error: null };
      } catch (err) {
        entry = { name: folder, dir, source: root.source, kind: 'invalid', manifest: null, error: (err as Error).message };
      }
      if (!byName.has(entry.name)) byName.set(entry.name, entry);
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * A skill by name.
 * @throws HoldfastError EXTENSION_NOT_FOUND (listing the known names), BAD_REQUEST when invalid.
 */
export function requireSkill(roots: SkillRoot[], name: string): SkillEntry & { manifest: SkillManifest } {
  const all = discoverSkills(roots);
  const s = all.find((x) => x.name === name);
  if (!s) {
    throw new HoldfastError('EXTENSION_NOT_FOUND', `no skill named "${name}"; skills: ${all.map((x) => x.name).join(', ') || '(none)'} — see skill_tool(action="list")`, {
      retryable: false,
      details: { skills: all.map((x) => x.name) },
    });
  }
  if (!s.manifest) throw new HoldfastError('BAD_REQUEST', `skill "${name}" (${s.dir}/SKILL.md) is invalid: ${s.error}`, { retryable: false });
  return s as SkillEntry & { manifest: SkillManifest };
}

/**
 * Every regular file of a skill folder (sorted, symlinks and dot folders skipped) and the
 * folder's revision: sha256 over each file's path and content hash. Any edit, added or removed
 * file changes the revision.
 * @throws HoldfastError LIMIT_EXCEEDED beyond {@link SkillLimits}.
 */
export function readSkillFolder(dir: string): { files: SkillFile[]; revision: string } {
  const files: SkillFile[] = [];
  let total = 0;
  const walk = (rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(join(dir, rel)).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const r = rel === '' ? n : `${rel}/${n}`;
      let st;
      try {
        st = lstatSync(join(dir, r));
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (!n.startsWith('.')) walk(r);
        continue;
      }
      if (!st.isFile()) continue;
      if (files.length >= SkillLimits.MAX_FILES || total + st.size > SkillLimits.MAX_TOTAL_BYTES) {
        throw new HoldfastError('LIMIT_EXCEEDED', `skill folder ${dir} has more than ${SkillLimits.MAX_FILES} files or ${SkillLimits.MAX_TOTAL_BYTES} bytes`, { retryable: false });
      }
      const content = readFileSync(join(dir, r));
      total += content.length;
      files.push({ path: r, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') });
    }
  };
  walk('');
  const h = createHash('sha256');
  for (const f of files) h.update(`${f.path}\0${f.sha256}\n`);
  return { files, revision: h.digest('hex').slice(0, 16) };
}

/**
 * The absolute, canonical path of `rel` inside the skill folder.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE when it leads out of the folder (`..`, an
 *   absolute path, a symlink), PATH_NOT_FOUND when it does not exist.
 */
export function pathInSkill(dir: string, rel: string): string {
  if (isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) throw new HoldfastError('PATH_OUTSIDE_WORKSPACE', `${rel} must be a path inside the skill folder`, { retryable: false });
  let real: string;
  try {
    real = realpathSync(join(dir, rel));
  } catch {
    throw new HoldfastError('PATH_NOT_FOUND', `${rel} does not exist in the skill folder ${dir}`, { retryable: false });
  }
  const base = realpathSync(dir);
  const r = relative(base, real);
  if (r === '' || r.startsWith(`..${sep}`) || r === '..' || isAbsolute(r)) throw new HoldfastError('PATH_OUTSIDE_WORKSPACE', `${rel} leads out of the skill folder ${dir}`, { retryable: false });
  return real;
}
