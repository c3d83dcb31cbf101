import { HoldfastError } from '@holdfast/shared/errors';
import type { PlanRow } from '../../store/plans-repo.js';
import { requirePlan } from '../../work/plan-lookup.js';
import { action, type ToolOutcome } from '../envelope.js';
import { assertWritable, planOutcome, type PlanCall } from './common.js';
import { planData, planText } from './view.js';

/**
 * `plan(action="deliver")` (issue 11): closes the plan once every task is completed or dropped
 * (else `PLAN_NOT_DELIVERABLE` naming the open tasks) and returns the summary — the whole plan
 * with all evidence. Delivering a delivered plan returns the same summary again. A delivered
 * plan no longer changes; its evidence stops being held back from retention.
 * @throws HoldfastError PLAN_NOT_DELIVERABLE, PLAN_REVISION_CONFLICT (a stale plan_revision given).
 */
export function deliverPlan({ args, session, ctx }: PlanCall): ToolOutcome {
  const { plans } = ctx.services.work;
  let plan = requirePlan(plans, args.plan_id, session.id);
  if (plan.state !== 'delivered') {
    assertWritable(plan, args.plan_revision);
    const open = plans.tasks(plan.id).filter((t) => t.state !== 'completed' && t.state !== 'dropped');
    if (open.length > 0) {
      const first = open[0]!;
      throw new HoldfastError('PLAN_NOT_DELIVERABLE', `plan ${plan.id} has ${open.length} open task(s): ${open.map((t) => `"${t.title}" (${t.id}, ${t.state})`).join(', ')}; complete or drop them first`, {
        retryable: false,
        details: {
          open_tasks: open.map((t) => ({ plan_task_id: t.id, state: t.state })),
          actions: [action('plan', { action: first.state === 'in_progress' ? 'complete' : 'advance', remote_session_id: session.id, plan_id: plan.id, plan_task_id: first.id }, `finish "${first.title}"`)],
        },
      });
    }
    const now = Date.now();
    const next: PlanRow = { ...plan, state: 'delivered', revision: plan.revision + 1, updated_at: now, delivered_at: now };
    plans.transaction(() => plans.savePlan(next));
    plan = next;
  }
  const { data, tasks } = planData(plans, plan);
  const evidence = (data.tasks as { evidence: unknown[] }[]).reduce((n, t) => n + t.evidence.length, 0);
  data.summary = { goal: plan.goal, tasks_completed: tasks.filter((t) => t.state === 'completed').length, tasks_dropped: tasks.filter((t) => t.state === 'dropped').length, evidence_items: evidence };
  return planOutcome('plan.delivered', plan, data, `Delivered: ${planText(plan, tasks)}\nGoal: ${plan.goal}`, session);
}
