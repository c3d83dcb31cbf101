import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanArray, leanInt, leanString } from './lean.js';

/** Actions of `plan` (issue 11). */
export const PlanAction = z.enum(['create', 'read', 'advance', 'complete', 'block', 'replan', 'deliver']);
export type PlanAction = z.infer<typeof PlanAction>;

/** Kinds of evidence `complete` accepts: each names something the runtime can check. */
export const EvidenceKind = z.enum(['execute', 'edit', 'artifact', 'note']);
export type EvidenceKind = z.infer<typeof EvidenceKind>;

/**
 * A task of `create` (or `replan`'s additions): `local_id` names it inside this one request, so
 * `depends_on` can point at tasks that have no `pt_` id yet (in `replan`, also at existing `pt_`
 * ids).
 */
export const PlanTaskInput = z.object({
  local_id: leanString(64, 1),
  title: leanString(500, 1),
  acceptance: leanString(2000).optional(),
  depends_on: leanArray(leanString(200, 1), 200).optional(),
});
export type PlanTaskInput = z.infer<typeof PlanTaskInput>;

/** One evidence item of `complete`; which id field it needs depends on `kind` (checked by the daemon). */
export const EvidenceInput = z.object({
  kind: EvidenceKind,
  execution_task_id: leanString(200).optional(),
  edit_id: leanString(200).optional(),
  artifact_id: leanString(200).optional(),
  text: leanString(4000).optional(),
});
export type EvidenceInput = z.infer<typeof EvidenceInput>;

/**
 * `plan` (issue 11, DESIGN §6.4): a durable plan of tasks with dependencies, moved forward with
 * checked evidence. Plans belong to one remote session; every change bumps `plan_revision`.
 * Refusals: a cycle or unknown `local_id` (`PLAN_INVALID`), `advance`/`complete` of a task whose
 * dependencies are not completed (`PLAN_DEPENDENCIES_OPEN`), evidence naming an id that is not this
 * session's or a task that has not ended (`EVIDENCE_INVALID`), a stale `plan_revision` on `replan`
 * (`PLAN_REVISION_CONFLICT`), `deliver` with open tasks (`PLAN_NOT_DELIVERABLE`).
 */
export const planTool = {
  name: 'plan',
  title: 'Plan work',
  description:
    'create: title, goal, tasks (depends_on local_ids). advance; block (reason). complete: evidence kind execute|edit|artifact|note ' +
    '+execution_task_id|edit_id|artifact_id|text. replan: plan_revision; tasks/drop/order. deliver. Link calls: plan_id/plan_task_id.',
  input: z.object({
    action: PlanAction,
    remote_session_id: z.string(),
    plan_id: leanString(200).optional(),
    plan_task_id: leanString(200).optional(),
    plan_revision: leanInt(1).optional(),
    title: leanString(500, 1).optional(),
    goal: leanString(4000).optional(),
    tasks: leanArray(PlanTaskInput, 200).optional(),
    evidence: leanArray(EvidenceInput, 50).optional(),
    reason: leanString(2000, 1).optional(),
    drop: leanArray(leanString(200), 200).optional(),
    order: leanArray(leanString(200), 400).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;
