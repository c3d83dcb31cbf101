import { WorkLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { newId } from '@holdfast/shared/ids';
import type { PlanRow, PlanTaskRow } from '../../store/plans-repo.js';
import { requirePlan } from '../../work/plan-lookup.js';
import { resolveNewTasks } from '../../work/plan-graph.js';
import type { ToolOutcome } from '../envelope.js';
import { assertWritable, newTaskRow, planOutcome, revisionConflict, type PlanCall } from './common.js';
import { planData, planText } from './view.js';

function invalid(message: string, details: Record<string, unknown> = {}): HoldfastError {
  return new HoldfastError('PLAN_INVALID', `${message}; nothing was changed`, { retryable: false, details });
}

/**
 * `plan(action="replan")` (issue 11): changes a plan at the revision the caller read —
 * `plan_revision` is required and must be current (else `PLAN_REVISION_CONFLICT` with the re-read
 * action, the plan unchanged). `tasks` adds tasks (their `depends_on` may name this request's
 * local ids or the plan's live `pt_` ids); `drop` drops tasks (never a completed one, never one a
 * remaining task depends on); `order` gives the new order of every remaining task (`pt_` ids, or
 * local ids of added tasks). Dropped tasks keep their row, state `dropped`, after the others.
 * @throws HoldfastError BAD_REQUEST, PLAN_REVISION_CONFLICT, PLAN_INVALID, PLAN_STATE_CONFLICT.
 */
export function replanPlan({ args, session, ctx }: PlanCall): ToolOutcome {
  const { plans } = ctx.services.work;
  const plan = requirePlan(plans, args.plan_id, session.id);
  if (args.plan_revision === undefined) throw new HoldfastError('BAD_REQUEST', `replan needs plan_revision (the revision you read; plan ${plan.id} is at ${plan.revision})`);
  if (args.plan_revision !== plan.revision) throw revisionConflict(plan);
  assertWritable(plan, args.plan_revision);
  const adds = args.tasks ?? [];
  const drops = new Set(args.drop ?? []);
  if (adds.length === 0 && drops.size === 0 && args.order === undefined) throw new HoldfastError('BAD_REQUEST', 'replan needs tasks (to add), drop or order');

  const current = plans.tasks(plan.id);
  if (current.length + adds.length > WorkLimits.PLAN_TASKS_MAX) throw new HoldfastError('LIMIT_EXCEEDED', `a plan holds at most ${WorkLimits.PLAN_TASKS_MAX} tasks`);
  const byId = new Map(current.map((t) => [t.id, t]));
  for (const id of drops) {
    const t = byId.get(id);
    if (!t) throw invalid(`drop names ${id}, which is not a task of plan ${plan.id}`, { unknown: id });
    if (t.state === 'completed') throw new HoldfastError('PLAN_STATE_CONFLICT', `"${t.title}" (${t.id}) is completed; completed tasks keep their evidence and cannot be dropped`, { retryable: false });
  }
  const live = current.filter((t) => t.state !== 'dropped' && !drops.has(t.id));
  const resolved = resolveNewTasks(adds, () => newId('planTask'), new Set(live.map((t) => t.id)));
  for (const t of live) {
    const gone = (JSON.parse(t.depends_on) as string[]).filter((d) => drops.has(d));
    if (gone.length > 0) throw invalid(`"${t.title}" (${t.id}) depends on ${gone.join(', ')}; drop it too, or keep what it depends on`, { plan_task_id: t.id, depends_on: gone });
  }

  // The order of the remaining tasks: as given (every remaining task exactly once), else as before with additions last.
  const remaining = [...live.map((t) => t.id), ...adds.map((a) => resolved.ids.get(a.local_id)!)];
  let order = remaining;
  if (args.order !== undefined) {
    order = args.order.map((x) => resolved.ids.get(x) ?? x);
    const want = new Set(remaining);
    const seen = new Set<string>();
    for (const id of order) {
      if (!want.has(id)) throw invalid(`order names ${id}, which is not a remaining task of plan ${plan.id}`, { unknown: id });
      if (seen.has(id)) throw invalid(`order names ${id} twice`, { duplicate: id });
      seen.add(id);
    }
    const missing = remaining.filter((id) => !seen.has(id));
    if (missing.length > 0) throw invalid(`order must list every remaining task; missing: ${missing.join(', ')}`, { missing });
  }
  const dropped = current.filter((t) => t.state === 'dropped' || drops.has(t.id)).map((t) => t.id);
  const position = new Map([...order, ...dropped].map((id, i) => [id, i]));

  const now = Date.now();
  const next: PlanRow = { ...plan, revision: plan.revision + 1, updated_at: now };
  plans.transaction(() => {
    for (const t of current) {
      const changed: PlanTaskRow = { ...t, position: position.get(t.id)!, state: drops.has(t.id) ? 'dropped' : t.state, updated_at: drops.has(t.id) ? now : t.updated_at };
      if (changed.position !== t.position || changed.state !== t.state) plans.saveTask(changed);
    }
    adds.forEach((a, i) => {
      const id = resolved.ids.get(a.local_id)!;
      plans.addTask(newTaskRow(id, plan.id, position.get(id)!, a, resolved.deps[i]!, now));
    });
    plans.savePlan(next);
  });
  const { data, tasks } = planData(plans, next);
  if (adds.length > 0) data.plan_task_ids = Object.fromEntries(resolved.ids);
  const what = [adds.length > 0 ? `${adds.length} added` : '', drops.size > 0 ? `${drops.size} dropped` : '', args.order ? 'reordered' : ''].filter(Boolean).join(', ');
  return planOutcome('plan.replanned', next, data, `Replanned (${what}): ${planText(next, tasks)}`, session);
}
