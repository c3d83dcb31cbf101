import { HoldfastError } from '@holdfast/shared/errors';
import type { ResultAction } from '@holdfast/shared/tools';
import { requirePlan } from '../../work/plan-lookup.js';
import type { ToolContext } from '../context.js';
import { failure, type ToolOutcome } from '../envelope.js';
import { accessSession } from '../session-access.js';
import { planOutcome, type PlanArgs, type PlanCall } from './common.js';
import { createPlan } from './create.js';
import { deliverPlan } from './deliver.js';
import { replanPlan } from './replan.js';
import { advanceTask, blockTask, completeTask } from './transitions.js';
import { planData, planText } from './view.js';

type PlanAction = (c: PlanCall) => Promise<ToolOutcome> | ToolOutcome;

/** One function per action (create.ts, transitions.ts, replan.ts, deliver.ts; read here). */
const ACTIONS: Record<PlanArgs['action'], PlanAction> = {
  create: createPlan,
  read: readPlan,
  advance: advanceTask,
  complete: completeTask,
  block: blockTask,
  replan: replanPlan,
  deliver: deliverPlan,
};

/**
 * `plan` (issue 11, DESIGN §6.4): durable plans of the caller's session. Every write of an action
 * commits in one transaction before the result is returned, and bumps `plan_revision`.
 */
export async function planHandler(args: PlanArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const session = accessSession(ctx.services, ctx.call.principal, args.remote_session_id, args.action === 'read' ? 'viewer' : 'editor');
  try {
    return await ACTIONS[args.action]({ args, session, ctx });
  } catch (err) {
    // Refusals carry their continuations (re-read, advance the open dependency) as actions.
    if (!(err instanceof HoldfastError) || !Array.isArray(err.details?.actions)) throw err;
    const { actions, ...details } = err.details;
    const plain = new HoldfastError(err.code, err.message, { retryable: err.retryable, ...(Object.keys(details).length > 0 ? { details } : {}) });
    const context = { remote_session_id: session.id, ...(args.plan_id ? { plan_id: args.plan_id } : {}) };
    return failure(`plan.${args.action}`, plain, { context, actions: actions as ResultAction[] });
  }
}

function readPlan({ args, session, ctx }: PlanCall): ToolOutcome {
  const plan = requirePlan(ctx.services.work.plans, args.plan_id, session.id);
  const { data, tasks } = planData(ctx.services.work.plans, plan);
  return planOutcome('plan.read', plan, data, planText(plan, tasks), session);
}
