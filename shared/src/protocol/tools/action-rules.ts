import type * as z from 'zod';

/** What one action of a flat tool input takes (issue 8: one object with an `action` enum). */
export interface ActionRule {
  /** Fields the action needs, besides `action`. */
  requires: readonly string[];
  /** Fields it also accepts; every other field of the tool is refused for this action. */
  accepts?: readonly string[];
}

/**
 * Adds the per-action rules of a flat tool input (issue 8) as a refinement of its zod object: the
 * fields an action needs must be present, and fields that belong only to other actions are refused,
 * each with one message that says what to send instead (a `BAD_REQUEST` for the model). The
 * JSON Schema the model sees stays one object (refinements do not render), which every
 * function-calling API accepts; a top-level `oneOf` made Claude Code drop the tool.
 * `always` fields are accepted by every action (e.g. `remote_session_id`).
 */
export function withActionRules<T extends z.ZodObject>(schema: T, rules: Readonly<Record<string, ActionRule>>, always: readonly string[] = []): T {
  return schema.superRefine((value: Record<string, unknown>, ctx) => {
    const act = value.action;
    if (typeof act !== 'string') return;
    const rule = rules[act];
    if (!rule) return;
    const missing = rule.requires.filter((f) => value[f] === undefined);
    if (missing.length > 0) {
      ctx.addIssue({ code: 'custom', path: [missing[0]!], message: `action=${act} needs ${missing.join(' and ')}` });
    }
    const allowed = new Set(['action', ...always, ...rule.requires, ...(rule.accepts ?? [])]);
    // Only fields of other actions are refused here: fields no rule names (work tracking, issue 11)
    // are every action's, and unknown keys are the object's own concern (strict or stripped).
    const others = new Set(Object.values(rules).flatMap((r) => [...r.requires, ...(r.accepts ?? [])]));
    const extra = Object.keys(value).filter((k) => value[k] !== undefined && others.has(k) && !allowed.has(k));
    if (extra.length > 0) {
      ctx.addIssue({ code: 'custom', path: [extra[0]!], message: `action=${act} takes only ${[...allowed].join(', ')}; remove ${extra.join(', ')}` });
    }
  }) as T;
}
