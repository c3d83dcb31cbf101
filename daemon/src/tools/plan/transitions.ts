import { WorkLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { PlanRow, PlansRepo, PlanTaskRow } from '../../store/plans-repo.js';
import { requirePlanTask } from '../../work/plan-lookup.js';
import { action, type ToolOutcome } from '../envelope.js';
import { checkEvidence } from './evidence.js';
import { assertWritable, planOutcome, type PlanCall } from './common.js';
import { stateCounts, taskView } from './view.js';

/** The task a transition acts on, its plan (writable, revision checked when given) and the repo. */
function target(c: PlanCall): { plans: PlansRepo; plan: PlanRow; task: PlanTaskRow } {
  const plans = c.ctx.services.work.plans;
  const { plan, task } = requirePlanTask(plans, c.args.plan_task_id, c.session.id, c.args.plan_id);
  assertWritable(plan, c.args.plan_revision);
  return { plans, plan, task };
}

/**
 * Refuses a task whose dependencies are not all completed, with the action that starts the first
 * open one. @throws HoldfastError PLAN_DEPENDENCIES_OPEN.
 */
function assertDependenciesDone(plans: PlansRepo, plan: PlanRow, task: PlanTaskRow, verb: string): void {
  const open = (JSON.parse(task.depends_on) as string[]).map((id) => plans.getTask(id)).filter((d): d is PlanTaskRow => !!d && d.state !== 'completed');
  if (open.length === 0) return;
  const first = open[0]!;
  throw new HoldfastError('PLAN_DEPENDENCIES_OPEN', `cannot ${verb} "${task.title}" (${task.id}): it depends on ${open.map((d) => `"${d.title}" (${d.id}, ${d.state})`).join(', ')}, not completed yet`, {
    retryable: false,
    details: {
      open_dependencies: open.map((d) => ({ plan_task_id: d.id, state: d.state })),
      actions: [action('plan', { action: first.state === 'in_progress' ? 'complete' : 'advance', remote_session_id: plan.session_id, plan_id: plan.id, plan_task_id: first.id }, `${first.state === 'in_progress' ? 'complete' : 'start'} "${first.title}" first`)],
    },
  });
}

function refuseFinal(task: PlanTaskRow, verb: string): never {
  throw new HoldfastError('PLAN_STATE_CONFLICT', `cannot ${verb} "${task.title}" (${task.id}): it is ${task.state}`, { retryable: false, details: { state: task.state } });
}

/** Stores a task change with the plan's new revision, in one transaction; returns the new plan row. */
function commit(plans: PlansRepo, plan: PlanRow, task: PlanTaskRow, extra: () => void = () => undefined): PlanRow {
  const now = Date.now();
  const next: PlanRow = { ...plan, revision: plan.revision + 1, updated_at: now };
  task.updated_at = now;
  plans.transaction(() => {
    plans.saveTask(task);
    extra();
    plans.savePlan(next);
  });
  return next;
}

function transitionOutcome(c: PlanCall, type: string, plan: PlanRow, task: PlanTaskRow, text: string): ToolOutcome {
  const plans = c.ctx.services.work.plans;
  const evidence = plans.evidence(plan.id).filter((e) => e.plan_task_id === task.id);
  const data = { plan_id: plan.id, plan_revision: plan.revision, task: taskView(task, evidence), counts: stateCounts(plans.tasks(plan.id)) };
  return planOutcome(type, plan, data, text, c.session, task);
}

/**
 * `plan(action="advance")` (issue 11): the task goes `in_progress` — from `pending` or `blocked`,
 * only when every task it depends on is `completed`. Advancing a task already in progress changes
 * nothing. @throws HoldfastError PLAN_DEPENDENCIES_OPEN, PLAN_STATE_CONFLICT (completed, dropped).
 */
export function advanceTask(c: PlanCall): ToolOutcome {
  const { plans, plan, task } = target(c);
  if (task.state === 'in_progress') return transitionOutcome(c, 'plan.advanced', plan, task, `"${task.title}" (${task.id}) is already in progress.`);
  if (task.state === 'completed' || task.state === 'dropped') refuseFinal(task, 'advance');
  assertDependenciesDone(plans, plan, task, 'advance');
  task.state = 'in_progress';
  task.block_reason = null;
  task.started_at ??= Date.now();
  const next = commit(plans, plan, task);
  return transitionOutcome(c, 'plan.advanced', next, task, `Started "${task.title}" (${task.id}); plan revision ${next.revision}.`);
}

/**
 * `plan(action="complete")` (issue 11): needs evidence the runtime can check (evidence.ts); its
 * dependencies must be completed. The task and its evidence commit together.
 * @throws HoldfastError BAD_REQUEST, EVIDENCE_INVALID, PLAN_DEPENDENCIES_OPEN, PLAN_STATE_CONFLICT.
 */
export async function completeTask(c: PlanCall): Promise<ToolOutcome> {
  const { plans, plan, task } = target(c);
  if (task.state === 'completed' || task.state === 'dropped') refuseFinal(task, 'complete');
  assertDependenciesDone(plans, plan, task, 'complete');
  if ((c.args.evidence?.length ?? 0) > WorkLimits.EVIDENCE_ITEMS_MAX) throw new HoldfastError('LIMIT_EXCEEDED', `at most ${WorkLimits.EVIDENCE_ITEMS_MAX} evidence items per call`);
  const evidence = await checkEvidence(c.args.evidence, c.session.id, c.ctx.services);
  // Checking evidence may have waited on a guardian: take the plan as it is now.
  const fresh = target(c);
  if (fresh.task.state === 'completed' || fresh.task.state === 'dropped') refuseFinal(fresh.task, 'complete');
  const now = Date.now();
  const t = fresh.task;
  t.state = 'completed';
  t.block_reason = null;
  t.started_at ??= now;
  t.completed_at = now;
  const next = commit(plans, fresh.plan, t, () => {
    evidence.forEach((e, i) => plans.addEvidence({ ...e, plan_task_id: t.id, seq: i, plan_id: fresh.plan.id, recorded_at: now }));
  });
  const exits = evidence.filter((e) => e.kind === 'execute').map((e) => `${e.ref_id} exit ${e.exit_code ?? 'none'}`);
  return transitionOutcome(c, 'plan.completed', next, t, `Completed "${t.title}" (${t.id}) with ${evidence.length} evidence item(s)${exits.length > 0 ? ` (${exits.join(', ')})` : ''}; plan revision ${next.revision}.`);
}

/**
 * `plan(action="block")` (issue 11): the task is `blocked` with a reason (again: the reason is
 * replaced); `advance` unblocks it. @throws HoldfastError BAD_REQUEST (no reason), PLAN_STATE_CONFLICT.
 */
export function blockTask(c: PlanCall): ToolOutcome {
  if (!c.args.reason) throw new HoldfastError('BAD_REQUEST', 'block needs reason (what the task is waiting for)');
  const { plans, plan, task } = target(c);
  if (task.state === 'completed' || task.state === 'dropped') refuseFinal(task, 'block');
  task.state = 'blocked';
  task.block_reason = c.args.reason;
  const next = commit(plans, plan, task);
  return transitionOutcome(c, 'plan.blocked', next, task, `Blocked "${task.title}" (${task.id}): ${c.args.reason}; plan revision ${next.revision}.`);
}
