import type { CallContext } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { ActivityUpdate, type ToolDef } from '@holdfast/shared/tools';
import { callEventData } from '../events/call-event.js';
import type { NewEvent } from '../store/events-repo.js';
import { nextActivity, type ActivitySnapshot } from '../work/activity.js';
import { resolvePlanContext } from '../work/plan-lookup.js';
import type { ToolServices } from './context.js';
import type { ToolOutcome } from './envelope.js';
import { trySession, accessSession } from './session-access.js';

/** `_meta` key of the activity snapshot in a tool result (issue 11). */
export const ACTIVITY_META_KEY = 'holdfast/activity';

/** The work-tracking arguments of one call, taken off its arguments and checked (issue 11). */
export interface CallTracking {
  activity: ActivityUpdate | null;
  plan: { plan_id: string; plan_task_id?: string } | null;
}

/**
 * Takes `activity`, `plan_id` and `plan_task_id` off a session tool's parsed arguments (issue 11;
 * `withWorkTracking` added them to the schema) and checks them before the tool runs: `activity`
 * strictly (only its six keys, strings); the plan ids must name a plan (task) of the call's own
 * session. Tools that define `plan_id` themselves (`plan`) keep theirs.
 * @throws HoldfastError BAD_REQUEST, SESSION_NOT_FOUND, PLAN_NOT_FOUND, PLAN_TASK_NOT_FOUND.
 */
export function takeTracking(def: ToolDef, parsed: Record<string, unknown>, call: CallContext, services: ToolServices): { args: Record<string, unknown>; tracking: CallTracking } {
  const tracking: CallTracking = { activity: null, plan: null };
  if (!def.workTracking) return { args: parsed, tracking };
  const { activity, ...rest } = parsed;
  let args: Record<string, unknown> = rest;
  if (activity !== undefined) {
    const a = ActivityUpdate.safeParse(activity);
    if (!a.success) {
      const issue = a.error.issues[0]!;
      throw new HoldfastError('BAD_REQUEST', `activity${issue.path.length > 0 ? `.${issue.path.join('.')}` : ''}: ${issue.message} (keys: intent, hypothesis, evidence, conclusion, next, status — strings)`);
    }
    tracking.activity = a.data;
  }
  if (def.workTracking.plan) {
    const { plan_id: rawPlan, plan_task_id: rawTask, ...others } = args;
    args = others;
    // Models often fill optional strings with "": an empty link is no link.
    const plan_id = rawPlan === '' ? undefined : rawPlan;
    const plan_task_id = rawTask === '' ? undefined : rawTask;
    if (plan_id !== undefined || plan_task_id !== undefined) {
      const rs = args.remote_session_id;
      if (typeof rs !== 'string') throw new HoldfastError('BAD_REQUEST', 'plan_id/plan_task_id need remote_session_id: plans belong to a session');
      const session = accessSession(services, call.principal, rs);
      tracking.plan = resolvePlanContext(services.work.plans, session.id, plan_id as string | undefined, plan_task_id as string | undefined);
    }
  }
  return { args, tracking };
}

/**
 * Records a finished call (issue 5 event; issue 11 additions) and returns the `_meta` of its
 * result. The plan context goes into the result's `context`; the event gets the call's target,
 * facts and plan ids. The event is written before the result is returned when the call carries
 * activity or plan ids or its handler added event data (work-tracking tools) — those are
 * acknowledged only once stored; other calls' events are batched (store/events-repo.ts). With
 * `activity`, the session's snapshot is updated in the same transaction and returned under
 * {@link ACTIVITY_META_KEY}. The session is resolved through `accessSession`, so nothing is ever
 * recorded into a session the caller may not see.
 */
export function recordCall(
  tool: string,
  args: Record<string, unknown>,
  tracking: CallTracking,
  outcome: ToolOutcome,
  call: CallContext,
  services: ToolServices,
  durationMs: number,
  extra?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const ctx = outcome.envelope.context;
  if (tracking.plan) {
    if (ctx.plan_id === undefined) ctx.plan_id = tracking.plan.plan_id;
    if (ctx.plan_task_id === undefined && tracking.plan.plan_task_id !== undefined) ctx.plan_task_id = tracking.plan.plan_task_id;
  }
  if (outcome.event?.skip && !tracking.activity) return undefined;
  const session = ctx.remote_session_id !== undefined ? trySession(services, call.principal, ctx.remote_session_id) : null;
  const data = { ...callEventData(tool, args, outcome, call, durationMs), ...(extra ?? {}) };
  const event: NewEvent = { session_id: session?.id ?? null, workspace: session?.workspace ?? null, kind: 'tool.call', tool, status: outcome.envelope.status, data };
  const { events, work } = services;
  if (tracking.activity && session) {
    const prev = work.activity.get(session.id);
    const snapshot: ActivitySnapshot = nextActivity(prev, tracking.activity, {
      tool,
      ...(typeof data.action === 'string' ? { action: data.action } : {}),
      ...(call.request_id !== undefined ? { request_id: call.request_id } : {}),
    });
    data.activity = snapshot;
    const now = Date.now();
    events.appendWith(event, (seq) => {
      snapshot.sequence = seq;
      events.stampActivitySequence(seq);
      work.activity.put({ session_id: session.id, turn_id: snapshot.turn_id, state: JSON.stringify(snapshot), sequence: seq, updated_at: now });
    }, now);
    return { [ACTIVITY_META_KEY]: snapshot };
  }
  if (tracking.plan || outcome.event) events.append(event);
  else events.appendSoon(event);
  return undefined;
}
