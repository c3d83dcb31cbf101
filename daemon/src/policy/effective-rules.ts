import type { HoldfastConfig } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import { ProjectCommandRules, type ProjectConfig } from './project-config.js';

type RulesConfig = HoldfastConfig['security']['commands'];

const RANK = { allow: 0, confirm: 1, deny: 2 } as const;
const cache = new WeakMap<RulesConfig, WeakMap<object, RulesConfig>>();

/**
 * The command rules in force for a workspace (issue 5, DESIGN §2): the user's
 * `security.commands`, narrowed by the project's `.holdfast.yaml` — its `deny` and `confirm`
 * rules are added, its `default` applies only when stricter; it cannot allow anything. What the
 * project has narrowed stays narrowed for the daemon's life even if the file is loosened or removed
 * (ProjectConfigCache, project-config.ts). The result is cached per (config, project config)
 * object so compiled rules are reused.
 * @throws HoldfastError `POLICY_DENIED` when the project's `security.commands` is malformed
 *   (a broken narrowing must not silently become none).
 */
export function effectiveCommandRules(global: RulesConfig, project: ProjectConfig): RulesConfig {
  const raw = project.security?.commands;
  if (raw === undefined) return global;
  let perGlobal = cache.get(global);
  if (!perGlobal) {
    perGlobal = new WeakMap();
    cache.set(global, perGlobal);
  }
  const hit = perGlobal.get(raw);
  if (hit) return hit;
  const parsed = ProjectCommandRules.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HoldfastError('POLICY_DENIED', `.holdfast.yaml: security.commands.${issue.path.join('.') || ''}: ${issue.message} (a project may set default, deny and confirm only); commands stay refused until it is fixed`);
  }
  const p = parsed.data;
  const merged: RulesConfig = {
    default: p.default && RANK[p.default] > RANK[global.default] ? p.default : global.default,
    deny: [...global.deny, ...(p.deny ?? [])],
    confirm: [...global.confirm, ...(p.confirm ?? [])],
    allow: global.allow,
    confirm_ttl_s: global.confirm_ttl_s,
  };
  perGlobal.set(raw, merged);
  return merged;
}
