import * as z from 'zod';
import type { ToolDef, ToolInputSchema } from './envelope.js';
import { renderedAs } from './json-schema.js';
import { leanString } from './lean.js';

/**
 * The work-tracking arguments every session tool accepts (issue 11, DESIGN §6.3): `activity` (what
 * changed in the agent's reasoning) and `plan_id` / `plan_task_id` (the plan step a call belongs
 * to). They are added to each tool's input schema once, here, by {@link withWorkTracking}: a tool
 * is a session tool when its input has `remote_session_id`, so tools added later are covered
 * without edits. The daemon takes them off the arguments before the tool's handler runs
 * (daemon/src/tools/work-tracking/).
 *
 * `tools/list` shows `activity` as an object of its six string keys, without lengths or the
 * at-least-one rule (bytes per tool: the whole catalogue must stay under 48 KB; issue 8: every
 * object parameter names its properties, which Gemini requires); the daemon checks it strictly with
 * {@link ActivityUpdate}.
 */

import { ACTIVITY_KEYS, type ActivityKey } from './constants.js';
export { ACTIVITY_KEYS, type ActivityKey };

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

/**
 * `activity` as `tools/list` shows it: an object naming its six string keys (issue 8: Gemini
 * refuses an object parameter without properties), checked strictly by the daemon.
 */
const activityField = renderedAs(z.looseObject({}), {
  type: 'object',
  properties: Object.fromEntries(ACTIVITY_KEYS.map((k) => [k, { type: 'string' }])),
})
  .optional()
  .describe('Only what changed');
const planIdField = leanString(200).optional();

/**
 * Adds `activity` (always) and `plan_id` / `plan_task_id` (unless the tool defines them itself, as
 * `plan` does) to a session tool's input. Tools without `remote_session_id` are returned as they
 * are. Sets {@link ToolDef.workTracking} so the daemon knows which keys it owns.
 */
export function withWorkTracking<T extends ToolDef>(tool: T): T {
  const shape = tool.input.shape;
  if (!('remote_session_id' in shape)) return tool;
  const plan = !('plan_id' in shape) && !('plan_task_id' in shape);
  const input: ToolInputSchema = tool.input.extend(plan ? { activity: activityField, plan_id: planIdField, plan_task_id: planIdField } : { activity: activityField });
  return { ...tool, input, workTracking: { plan } };
}
