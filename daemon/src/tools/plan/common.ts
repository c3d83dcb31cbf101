import { HoldfastError } from '@holdfast/shared/errors';
import type { PlanTaskInput, planTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { PlanRow, PlanTaskRow } from '../../store/plans-repo.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';

/** A new `pending` task row from a create/replan request item. */
export function newTaskRow(id: string, planId: string, position: number, t: PlanTaskInput, dependsOn: string[], now: number): PlanTaskRow {
  return {
    id,
    plan_id: planId,
    position,
    local_id: t.local_id,
    title: t.title,
    acceptance: t.acceptance ?? null,
    depends_on: JSON.stringify(dependsOn),
    state: 'pending',
    block_reason: null,
    created_at: now,
    updated_at: now,
    started_at: null,
    completed_at: null,
  };
}

/** Parsed arguments of `plan`. */
export type PlanArgs = z.output<typeof planTool.input>;

/** What every plan action gets: the caller's session (access-checked) and the call context. */
export interface PlanCall {
  args: PlanArgs;
  session: SessionRow;
  ctx: ToolContext;
}

/**
 * A plan result: context with the session and plan ids, event data for the observe stream
 * (the plan's title or the task's as target, the revision and the task's state).
 */
export function planOutcome(type: string, plan: PlanRow, data: Record<string, unknown>, text: string, session: SessionRow, task?: PlanTaskRow, actions = [] as ReturnType<typeof action>[]): ToolOutcome {
  const o = outcome(type, 'succeeded', data, text, {
    context: { remote_session_id: session.id, plan_id: plan.id, ...(task ? { plan_task_id: task.id } : {}) },
    actions,
  });
  o.event = {
    data: {
      target: task ? task.title : plan.title,
      plan_id: plan.id,
      ...(task ? { plan_task_id: task.id, task_state: task.state } : {}),
      plan_state: plan.state,
      plan_revision: plan.revision,
    },
  };
  return o;
}

/**
 * Refuses changes to a delivered plan and, when the call names a `plan_revision`, a stale one.
 * @throws HoldfastError PLAN_STATE_CONFLICT, PLAN_REVISION_CONFLICT (with the re-read action).
 */
export function assertWritable(plan: PlanRow, revision: number | undefined): void {
  if (plan.state === 'delivered') {
    throw new HoldfastError('PLAN_STATE_CONFLICT', `plan ${plan.id} was delivered; it no longer changes (create a new plan for more work)`, { retryable: false });
  }
  if (revision !== undefined && revision !== plan.revision) throw revisionConflict(plan);
}

/** `PLAN_REVISION_CONFLICT` with the action that re-reads the plan. */
export function revisionConflict(plan: PlanRow): HoldfastError {
  return new HoldfastError('PLAN_REVISION_CONFLICT', `plan ${plan.id} is at revision ${plan.revision}; read it again and base your change on that revision`, {
    retryable: false,
    details: { plan_revision: plan.revision, actions: [action('plan', { action: 'read', remote_session_id: plan.session_id, plan_id: plan.id }, 're-read the plan, then repeat the change with its plan_revision')] },
  });
}
