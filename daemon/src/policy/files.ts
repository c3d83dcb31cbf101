import type { HoldfastConfig } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import type { ResolvedPath } from '../files/workspace-path.js';
import { PROJECT_CONFIG_NAME, type ProjectConfigCache } from './project-config.js';

/** The file rules in force for one workspace: the user's config narrowed by the project's. */
export interface FilePolicy {
  /** Deny regexes over workspace-relative paths (directories are tested with a trailing `/`). */
  deny: readonly { source: string; re: RegExp }[];
  readWindowBytes: number;
  maxPatchFiles: number;
  maxPatchLines: number;
}

const compiled = new WeakMap<readonly string[], { source: string; re: RegExp }[]>();

function compile(patterns: readonly string[], origin: string): { source: string; re: RegExp }[] {
  let list = compiled.get(patterns);
  if (list) return list;
  list = patterns.map((source) => {
    try {
      return { source, re: new RegExp(source) };
    } catch (err) {
      throw new HoldfastError('POLICY_DENIED', `${origin}: deny rule ${JSON.stringify(source)} is not a valid regular expression (${(err as Error).message})`);
    }
  });
  compiled.set(patterns, list);
  return list;
}

/**
 * The effective file policy of a workspace root (issue 4; DESIGN §2): `security.files.deny` of
 * config.yaml plus the project's deny rules; limits are the lower of the two.
 * @throws HoldfastError POLICY_DENIED when a rule or the project file is invalid (fail closed).
 */
export function filePolicyFor(config: HoldfastConfig, projects: ProjectConfigCache, root: string): FilePolicy {
  const project = projects.get(root);
  const g = config.security.files;
  const p = project.security?.files;
  const deny = compile(g.deny, 'config.yaml security.files');
  const projectDeny = p?.deny ? compile(p.deny, PROJECT_CONFIG_NAME) : [];
  return {
    deny: projectDeny.length > 0 ? [...deny, ...projectDeny] : deny,
    readWindowBytes: Math.min(config.limits.read_window_bytes, project.limits?.read_window_bytes ?? Number.POSITIVE_INFINITY),
    maxPatchFiles: Math.min(g.max_patch_files, p?.max_patch_files ?? Number.POSITIVE_INFINITY),
    maxPatchLines: Math.min(g.max_patch_lines, p?.max_patch_lines ?? Number.POSITIVE_INFINITY),
  };
}

/** The deny rule matching a workspace-relative path, or null. */
export function deniedBy(policy: FilePolicy, rel: string, isDirectory: boolean): string | null {
  if (rel === '') return null;
  const probe = isDirectory ? `${rel}/` : rel;
  for (const r of policy.deny) if (r.re.test(probe)) return r.source;
  return null;
}

/**
 * Refuses a path that policy denies, by its own name or by where it really is (a symlink inside
 * the workspace pointing into `.git/` is denied too).
 * @throws HoldfastError POLICY_DENIED.
 */
export function assertAllowed(policy: FilePolicy, p: ResolvedPath, isDirectory = p.lstat?.isDirectory() ?? false): void {
  const rule = deniedBy(policy, p.rel, isDirectory) ?? (p.realRel !== p.rel ? deniedBy(policy, p.realRel, isDirectory) : null);
  if (rule !== null) {
    throw new HoldfastError('POLICY_DENIED', `${p.rel} is denied by the file policy (rule ${JSON.stringify(rule)}); ask the user if you really need it`, { details: { path: p.rel, rule } });
  }
}

/**
 * Refuses writes to the project config itself: an agent must not lift the narrowing it is bound by.
 * @throws HoldfastError POLICY_DENIED.
 */
export function assertWritable(p: ResolvedPath): void {
  if (p.rel === PROJECT_CONFIG_NAME || p.realRel === PROJECT_CONFIG_NAME) {
    throw new HoldfastError('POLICY_DENIED', `${PROJECT_CONFIG_NAME} holds the project's security rules; only the user edits it`, { details: { path: p.rel } });
  }
}
