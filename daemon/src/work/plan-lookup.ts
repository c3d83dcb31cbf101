import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';
import type { PlanRow, PlansRepo, PlanTaskRow } from '../store/plans-repo.js';

/**
 * A plan of this session (issue 11). Another session's plan is not found either.
 * @throws HoldfastError BAD_REQUEST without an id, PLAN_NOT_FOUND.
 */
export function requirePlan(plans: PlansRepo, id: string | undefined, sessionId: string): PlanRow {
  if (id === undefined || id === '') throw new HoldfastError('BAD_REQUEST', 'this action needs plan_id (the pl_… id from plan(action="create"))');
  const row = isId('plan', id) ? plans.getPlan(id) : undefined;
  if (!row || row.session_id !== sessionId) {
    throw new HoldfastError('PLAN_NOT_FOUND', `no plan ${JSON.stringify(id)} in session ${sessionId}; plans belong to the session that created them`, { retryable: false });
  }
  return row;
}

/**
 * A task of a plan of this session; with `planId`, of that plan.
 * @throws HoldfastError BAD_REQUEST without an id, PLAN_TASK_NOT_FOUND.
 */
export function requirePlanTask(plans: PlansRepo, id: string | undefined, sessionId: string, planId?: string): { plan: PlanRow; task: PlanTaskRow } {
  if (id === undefined || id === '') throw new HoldfastError('BAD_REQUEST', 'this action needs plan_task_id (a pt_… id from plan(action="create") or plan(action="read"))');
  const task = isId('planTask', id) ? plans.getTask(id) : undefined;
  const plan = task ? plans.getPlan(task.plan_id) : undefined;
  if (!task || !plan || plan.session_id !== sessionId || (planId !== undefined && plan.id !== planId)) {
    const where = planId !== undefined && planId !== '' ? `plan ${JSON.stringify(planId)}` : `the plans of session ${sessionId}`;
    throw new HoldfastError('PLAN_TASK_NOT_FOUND', `no task ${JSON.stringify(id)} in ${where}; read the plan for its plan_task_ids`, { retryable: false });
  }
  return { plan, task };
}

/**
 * The plan context a call names with `plan_id` / `plan_task_id` (issue 11, DESIGN §6.3): both must
 * belong to the session; a task alone implies its plan.
 * @throws HoldfastError PLAN_NOT_FOUND, PLAN_TASK_NOT_FOUND.
 */
export function resolvePlanContext(plans: PlansRepo, sessionId: string, planId: string | undefined, planTaskId: string | undefined): { plan_id: string; plan_task_id?: string } {
  if (planTaskId !== undefined) {
    const { plan, task } = requirePlanTask(plans, planTaskId, sessionId, planId);
    return { plan_id: plan.id, plan_task_id: task.id };
  }
  return { plan_id: requirePlan(plans, planId, sessionId).id };
}
