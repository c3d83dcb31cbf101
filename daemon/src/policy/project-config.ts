import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import * as z from 'zod';
import { HoldfastError } from '@holdfast/shared/errors';

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

interface Entry {
  mtimeMs: number;
  size: number;
  value: ProjectConfig;
}

/**
 * Loads `<root>/.holdfast.yaml`, cached by mtime and size (one stat per call). A file that exists
 * but does not parse fails closed: file tools refuse to work until it is fixed, because a broken
 * narrowing must not silently become no narrowing.
 */
export class ProjectConfigCache {
  private readonly entries = new Map<string, Entry>();

  /**
   * The project config of a workspace root (empty when there is no file).
   * @throws HoldfastError POLICY_DENIED when the file is unreadable or invalid.
   */
  get(root: string): ProjectConfig {
    const path = join(root, PROJECT_CONFIG_NAME);
    let st;
    try {
      st = statSync(path);
    } catch {
      this.entries.delete(root);
      return {};
    }
    const hit = this.entries.get(root);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.value;
    const value = parseProjectConfig(readFileSync(path, 'utf8'), path);
    this.entries.set(root, { mtimeMs: st.mtimeMs, size: st.size, value });
    return value;
  }
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
