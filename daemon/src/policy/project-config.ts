import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import * as z from 'zod';
import { HoldfastError } from '@holdfast/shared/errors';
import { compileRule } from './rules.js';

/** The project config file at a workspace root (DESIGN §2). */
export const PROJECT_CONFIG_NAME = '.holdfast.yaml';

/**
 * What a project's `.holdfast.yaml` may say. Everything only narrows the user's config: deny lists
 * are added, numeric limits are lowered, never raised (DESIGN §2). Unknown keys are ignored so
 * other sections (commands, added by their own issues) can grow independently.
 */
export const ProjectConfig = z.object({
  security: z
    .object({
      files: z
        .object({
          deny: z.array(z.string()).optional(),
          max_patch_files: z.number().int().min(1).optional(),
          max_patch_lines: z.number().int().min(1).optional(),
        })
        .optional(),
      commands: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  limits: z.object({ read_window_bytes: z.number().int().min(1024).optional() }).optional(),
  /** Project tasks for `execute(task=NAME)` (issue 5; read by daemon/src/project/holdfast-yaml.ts). */
  tasks: z.record(z.string(), z.unknown()).optional(),
});
export type ProjectConfig = z.infer<typeof ProjectConfig>;

/** What a project's `.holdfast.yaml` may say about commands: only narrowing (DESIGN §2). */
export const ProjectCommandRules = z
  .object({
    default: z.enum(['allow', 'confirm', 'deny']).optional(),
    deny: z.array(z.string()).optional(),
    confirm: z.array(z.string()).optional(),
  })
  .strict();

interface Entry {
  mtimeMs: number;
  size: number;
  value: ProjectConfig;
}

/**
 * The narrowing a workspace's `.holdfast.yaml` has ever asked for, while this daemon runs
 * (issue 5 finding "project narrowing can be lifted by the agent"). The agent can rewrite or
 * delete the file from its shell; what it said stays in force: rules are only ever added, the
 * default only ever gets stricter, file limits only lower. A person who really loosens the file
 * restarts the daemon. Module state, shared by every {@link ProjectConfigCache} of the process.
 */
interface Narrowing {
  /** Bumped on every change (merged configs are cached against it). */
  version: number;
  default: 'confirm' | 'deny' | null;
  deny: string[];
  confirm: string[];
  filesDeny: string[];
  maxPatchFiles: number | null;
  maxPatchLines: number | null;
}

const narrowings = new Map<string, Narrowing>();
/** Source of {@link Narrowing.version}s (monotonic for the process, so a cached merge is never mistaken). */
let versions = 0;
const EMPTY: ProjectConfig = Object.freeze({}) as ProjectConfig;
const STRICTNESS = { allow: 0, confirm: 1, deny: 2 } as const;

function validRule(kind: 'deny' | 'confirm', rule: string): boolean {
  try {
    compileRule(kind, rule);
    return true;
  } catch {
    return false;
  }
}

function validRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** Adds what `value` narrows to the workspace's remembered narrowing; returns it (or undefined: none ever). */
function remember(root: string, value: ProjectConfig): Narrowing | undefined {
  let n = narrowings.get(root);
  const sec = value.security;
  if (!sec) return n;
  let changed = false;
  const get = (): Narrowing => {
    if (!n) {
      n = { version: 0, default: null, deny: [], confirm: [], filesDeny: [], maxPatchFiles: null, maxPatchLines: null };
      narrowings.set(root, n);
    }
    return n;
  };
  const addAll = (list: string[], items: readonly string[] | undefined, ok: (s: string) => boolean): void => {
    for (const it of items ?? []) {
      if (!list.includes(it) && ok(it)) {
        list.push(it);
        changed = true;
      }
    }
  };
  const cmds = sec.commands === undefined ? null : ProjectCommandRules.safeParse(sec.commands);
  if (cmds?.success) {
    const c = cmds.data;
    if (c.deny?.length || c.confirm?.length || (c.default && c.default !== 'allow')) {
      const m = get();
      addAll(m.deny, c.deny, (r) => validRule('deny', r));
      addAll(m.confirm, c.confirm, (r) => validRule('confirm', r));
      if (c.default && c.default !== 'allow' && STRICTNESS[c.default] > STRICTNESS[m.default ?? 'allow']) {
        m.default = c.default;
        changed = true;
      }
    }
  }
  const f = sec.files;
  if (f && (f.deny?.length || f.max_patch_files !== undefined || f.max_patch_lines !== undefined)) {
    const m = get();
    addAll(m.filesDeny, f.deny, validRegExp);
    if (f.max_patch_files !== undefined && (m.maxPatchFiles === null || f.max_patch_files < m.maxPatchFiles)) {
      m.maxPatchFiles = f.max_patch_files;
      changed = true;
    }
    if (f.max_patch_lines !== undefined && (m.maxPatchLines === null || f.max_patch_lines < m.maxPatchLines)) {
      m.maxPatchLines = f.max_patch_lines;
      changed = true;
    }
  }
  if (changed) n!.version = ++versions;
  return n;
}

const union = (a: readonly string[] | undefined, b: readonly string[]): string[] => [...(a ?? []), ...b.filter((x) => !(a ?? []).includes(x))];
const lower = (a: number | undefined, b: number | null): number | undefined => (b === null ? a : a === undefined ? b : Math.min(a, b));

/** The file's config with the remembered narrowing added (a malformed commands section is kept as is: it must still fail). */
function withNarrowing(value: ProjectConfig, n: Narrowing): ProjectConfig {
  const sec = value.security ?? {};
  let commands = sec.commands;
  const parsed = commands === undefined ? null : ProjectCommandRules.safeParse(commands);
  if (commands === undefined || parsed?.success) {
    const p = parsed?.success ? parsed.data : {};
    const def = STRICTNESS[p.default ?? 'allow'] >= STRICTNESS[n.default ?? 'allow'] ? p.default : (n.default ?? undefined);
    commands = {
      ...(def ? { default: def } : {}),
      ...(p.deny || n.deny.length ? { deny: union(p.deny, n.deny) } : {}),
      ...(p.confirm || n.confirm.length ? { confirm: union(p.confirm, n.confirm) } : {}),
    };
  }
  const files = sec.files || n.filesDeny.length || n.maxPatchFiles !== null || n.maxPatchLines !== null
    ? {
        ...sec.files,
        ...(sec.files?.deny || n.filesDeny.length ? { deny: union(sec.files?.deny, n.filesDeny) } : {}),
        ...(lower(sec.files?.max_patch_files, n.maxPatchFiles) !== undefined ? { max_patch_files: lower(sec.files?.max_patch_files, n.maxPatchFiles) } : {}),
        ...(lower(sec.files?.max_patch_lines, n.maxPatchLines) !== undefined ? { max_patch_lines: lower(sec.files?.max_patch_lines, n.maxPatchLines) } : {}),
      }
    : undefined;
  return { ...value, security: { ...sec, ...(commands !== undefined ? { commands } : {}), ...(files ? { files } : {}) } };
}

/**
 * Loads `<root>/.holdfast.yaml`, cached by mtime and size (one stat per call). A file that exists
 * but does not parse fails closed: file tools refuse to work until it is fixed, because a broken
 * narrowing must not silently become no narrowing.
 *
 * Narrowing is sticky (see {@link Narrowing}): the config returned for a root holds every
 * `security.commands` deny/confirm rule and `security.files` deny rule the file has held since the
 * daemon started, the strictest default and the lowest patch limits — even after the file is
 * loosened, replaced or removed. Tightening takes effect at once. Other sections (tasks, limits)
 * are the file's current ones.
 */
export class ProjectConfigCache {
  private readonly entries = new Map<string, Entry>();
  private readonly merged = new Map<string, { source: ProjectConfig; version: number; value: ProjectConfig }>();
  /** The file content last added to the remembered narrowing, per root (so it is merged once). */
  private readonly remembered = new Map<string, ProjectConfig>();

  /**
   * The project config of a workspace root (empty when there is no file and never was one), with
   * the remembered narrowing.
   * @throws HoldfastError POLICY_DENIED when the file is unreadable or invalid.
   */
  get(root: string): ProjectConfig {
    const current = this.read(root);
    let n: Narrowing | undefined;
    if (this.remembered.get(root) !== current) {
      n = remember(root, current);
      this.remembered.set(root, current);
    } else n = narrowings.get(root);
    if (!n) return current;
    const hit = this.merged.get(root);
    if (hit && hit.source === current && hit.version === n.version) return hit.value;
    const value = withNarrowing(current, n);
    this.merged.set(root, { source: current, version: n.version, value });
    return value;
  }

  private read(root: string): ProjectConfig {
    const path = join(root, PROJECT_CONFIG_NAME);
    let st;
    try {
      st = statSync(path);
    } catch {
      this.entries.delete(root);
      return EMPTY;
    }
    const hit = this.entries.get(root);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.value;
    const value = parseProjectConfig(readFileSync(path, 'utf8'), path);
    this.entries.set(root, { mtimeMs: st.mtimeMs, size: st.size, value });
    return value;
  }
}

/** For tests: forgets the remembered narrowing of every workspace (what a daemon restart does). */
export function forgetProjectNarrowing(): void {
  narrowings.clear();
  versions++;
}

/**
 * Parses the text of a project config.
 * @throws HoldfastError POLICY_DENIED naming the file and the problem.
 */
export function parseProjectConfig(text: string, source: string): ProjectConfig {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw invalid(source, doc.errors[0]!.message);
  const parsed = ProjectConfig.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(source, `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

function invalid(source: string, problem: string): HoldfastError {
  return new HoldfastError('POLICY_DENIED', `${source} is invalid (${problem}); file tools stay refused until the user fixes it`, { details: { file: source } });
}
