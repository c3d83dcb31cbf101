import * as z from 'zod';
import type { ToolDef, ToolInputSchema } from './envelope.js';
import { leanString } from './lean.js';

/**
 * The work-tracking arguments every session tool accepts (issue 11, DESIGN §6.3): `activity` (what
 * changed in the agent's reasoning) and `plan_id` / `plan_task_id` (the plan step a call belongs
 * to). They are added to each tool's input schema once, here, by {@link withWorkTracking}: a tool
 * is a session tool when its input has `remote_session_id`, so tools added later are covered
 * without edits. The daemon takes them off the arguments before the tool's handler runs
 * (daemon/src/tools/work-tracking/).
 *
 * `tools/list` shows `activity` as a bare object whose description names its keys (a few dozen
 * bytes per tool instead of a full object schema; the whole catalogue must stay under 48 KB); the
 * daemon checks it strictly with {@link ActivityUpdate}.
 */

/** The keys of an activity update, in display order. */
export const ACTIVITY_KEYS = ['intent', 'hypothesis', 'evidence', 'conclusion', 'next', 'status'] as const;
export type ActivityKey = (typeof ACTIVITY_KEYS)[number];

/** Longest activity text, characters (`status` is a short word or phrase). */
const ACTIVITY_TEXT_MAX = 2000;
const ACTIVITY_STATUS_MAX = 200;

/**
 * One `activity` argument, checked strictly by the daemon: only the six keys, each a non-empty
 * string, at least one given. `intent` starts a new turn; the others update the current one.
 */
export const ActivityUpdate = z
  .strictObject({
    intent: z.string().min(1).max(ACTIVITY_TEXT_MAX).optional(),
    hypothesis: z.string().min(1).max(ACTIVITY_TEXT_MAX).optional(),
    evidence: z.string().min(1).max(ACTIVITY_TEXT_MAX).optional(),
    conclusion: z.string().min(1).max(ACTIVITY_TEXT_MAX).optional(),
    next: z.string().min(1).max(ACTIVITY_TEXT_MAX).optional(),
    status: z.string().min(1).max(ACTIVITY_STATUS_MAX).optional(),
  })
  .refine((a) => ACTIVITY_KEYS.some((k) => a[k] !== undefined), `activity needs at least one of ${ACTIVITY_KEYS.join(', ')}`);
export type ActivityUpdate = z.infer<typeof ActivityUpdate>;

/** Names of the arguments {@link withWorkTracking} adds. */
export const WORK_TRACKING_KEYS = ['activity', 'plan_id', 'plan_task_id'] as const;

const activityField = z.looseObject({}).optional().describe(`Changed only: ${ACTIVITY_KEYS.join('|')}`);
const planIdField = leanString(200).optional();

/**
 * Adds `activity` (always) and `plan_id` / `plan_task_id` (unless the tool defines them itself, as
 * `plan` does) to a session tool's input. Tools without `remote_session_id` are returned as they
 * are. Sets {@link ToolDef.workTracking} so the daemon knows which keys it owns.
 */
export function withWorkTracking<T extends ToolDef>(tool: T): T {
  const options: z.ZodObject[] = tool.input instanceof z.ZodDiscriminatedUnion ? [...(tool.input.options as readonly z.ZodObject[])] : [tool.input as z.ZodObject];
  if (!options.every((o) => 'remote_session_id' in o.shape)) return tool;
  const plan = options.every((o) => !('plan_id' in o.shape) && !('plan_task_id' in o.shape));
  const extend = (o: z.ZodObject): z.ZodObject => o.extend(plan ? { activity: activityField, plan_id: planIdField, plan_task_id: planIdField } : { activity: activityField });
  const input: ToolInputSchema =
    tool.input instanceof z.ZodDiscriminatedUnion
      ? z.discriminatedUnion(tool.input.def.discriminator as string, options.map(extend) as [z.ZodObject, ...z.ZodObject[]])
      : extend(tool.input as z.ZodObject);
  return { ...tool, input, workTracking: { plan } };
}
