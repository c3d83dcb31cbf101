import { WorkLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { newId } from '@holdfast/shared/ids';
import type { PlanRow } from '../../store/plans-repo.js';
import { resolveNewTasks } from '../../work/plan-graph.js';
import { action, type ToolOutcome } from '../envelope.js';
import { newTaskRow, planOutcome, type PlanCall } from './common.js';
import { planData, planText } from './view.js';

/**
 * `plan(action="create")` (issue 11): `title`, `goal` and `tasks` (`local_id`, `title`,
 * `acceptance?`, `depends_on[]` of local ids). Local ids resolve inside this request only; a
 * duplicate, an unknown id or a cycle refuses the whole create. Returns the plan with one
 * `plan_task_id` per task (also as `plan_task_ids`: local_id → pt_…) and `plan_revision` 1.
 * @throws HoldfastError BAD_REQUEST (missing title/goal/tasks), PLAN_INVALID.
 */
export function createPlan({ args, session, ctx }: PlanCall): ToolOutcome {
  if (!args.title) throw new HoldfastError('BAD_REQUEST', 'create needs title');
  if (args.goal === undefined) throw new HoldfastError('BAD_REQUEST', 'create needs goal (what the plan achieves when delivered)');
  const tasks = args.tasks ?? [];
  if (tasks.length === 0) throw new HoldfastError('BAD_REQUEST', 'create needs tasks: [{local_id, title, acceptance?, depends_on: [local_id…]}]');
  if (tasks.length > WorkLimits.PLAN_TASKS_MAX) throw new HoldfastError('LIMIT_EXCEEDED', `a plan holds at most ${WorkLimits.PLAN_TASKS_MAX} tasks`);
  const resolved = resolveNewTasks(tasks, () => newId('planTask'));
  const now = Date.now();
  const plan: PlanRow = {
    id: newId('plan'),
    session_id: session.id,
    workspace: session.workspace,
    title: args.title,
    goal: args.goal,
    state: 'open',
    revision: 1,
    created_at: now,
    updated_at: now,
    delivered_at: null,
  };
  const { plans } = ctx.services.work;
  plans.transaction(() => {
    plans.addPlan(plan);
    tasks.forEach((t, i) => plans.addTask(newTaskRow(resolved.ids.get(t.local_id)!, plan.id, i, t, resolved.deps[i]!, now)));
  });
  const { data, tasks: rows } = planData(plans, plan);
  data.plan_task_ids = Object.fromEntries(resolved.ids);
  const first = rows.find((r) => (JSON.parse(r.depends_on) as string[]).length === 0);
  const next = first ? [action('plan', { action: 'advance', remote_session_id: session.id, plan_id: plan.id, plan_task_id: first.id }, `start "${first.title}"`)] : [];
  return planOutcome('plan.created', plan, data, `Created ${planText(plan, rows)}`, session, undefined, next);
}
