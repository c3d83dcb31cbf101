import { HoldfastError } from '@holdfast/shared/errors';
import type { ResultAction, ResultContext } from '@holdfast/shared/tools';
import type { PolicyVerdict } from '../policy/commands.js';
import { displaySafe } from '../policy/text-safety.js';
import type { TaskRow } from '../store/tasks-repo.js';
import { action, failure, outcome, type ToolOutcome } from '../tools/envelope.js';
import type { ExecuteArgs, ResolvedCall } from './call.js';

/** The verdict as given back to the model (segments trimmed to what explains the decision). */
export function verdictData(v: PolicyVerdict): Record<string, unknown> {
  return {
    decision: v.decision,
    reason: v.reason,
    segments: v.segments.map((s) => ({ text: s.text, command: s.command, ...(s.via.length ? { via: s.via } : {}), decision: s.decision, rule: s.rule })),
    ...(v.refusals.length ? { refusals: v.refusals.map((r) => ({ kind: r.kind, text: r.text, message: r.message })) } : {}),
  };
}

/**
 * What a user is asked to confirm: the frozen command, where, why, and the rule that asks. The
 * command itself never holds a control or bidirectional character (the policy refuses those); the
 * agent-chosen parts around it (purpose, folder, task name) are shown through `displaySafe`, so
 * they cannot fake a line or reverse the rest of the summary.
 */
export function confirmationSummary(call: Pick<ResolvedCall, 'command' | 'argv' | 'taskName' | 'cwd' | 'purpose' | 'background' | 'env'>, rule: string | null): string {
  const what = call.argv ? `argv ${JSON.stringify(call.argv)}` : call.taskName ? `project task ${displaySafe(call.taskName)} (${call.command})` : call.command!;
  return [
    `Run ${what}`,
    call.background ? ' as a background task' : '',
    call.cwd ? ` in ${displaySafe(call.cwd)}` : ' in the session’s current directory',
    call.env ? ` with ${Object.keys(call.env).join(', ')} set` : '',
    call.purpose ? ` — purpose: ${displaySafe(call.purpose)}` : '',
    rule ? ` (asked by ${rule})` : '',
  ].join('');
}

/** `POLICY_DENIED` with the verdict; a refused lone `&` carries the ready background action. */
export function refusedOutcome(v: PolicyVerdict, args: ExecuteArgs, rs: string): ToolOutcome {
  const actions: ResultAction[] = [];
  if (v.background_command !== undefined) {
    const { idempotency_key: _k, user_confirmed: _c, ...rest } = args;
    actions.push(action('execute', { ...rest, action: 'run', remote_session_id: rs, command: v.background_command, background: true }, 'run it as a tracked background task instead of with &'));
  }
  return refusedOutcomeFor('execute.refused', v, { remote_session_id: rs, ...(args.purpose ? { purpose: args.purpose } : {}) }, actions);
}

/** `POLICY_DENIED` with the verdict, for any call the policy refused (`execute`; an executable skill, issue 13). */
export function refusedOutcomeFor(type: string, v: PolicyVerdict, context: ResultContext, actions: ResultAction[] = []): ToolOutcome {
  return failure(type, new HoldfastError('POLICY_DENIED', v.reason, { retryable: false }), { context, data: { policy: verdictData(v) }, actions });
}

/**
 * `waiting_confirmation` (issue 5): the summary for the user, when it expires, and the ready
 * action — the same call with `user_confirmed: true` and the confirmation's `idempotency_key`.
 */
export function confirmationOutcome(row: TaskRow, args: ExecuteArgs, key: string, summary: string, v: PolicyVerdict | null, expiredBefore: boolean): ToolOutcome {
  const { user_confirmed: _c, ...rest } = args;
  const again = { ...rest, action: 'run', remote_session_id: row.session_id, idempotency_key: key, user_confirmed: true };
  const data: Record<string, unknown> = {
    execution_task_id: row.id,
    state: row.state,
    confirmation: { summary, idempotency_key: key, expires_at: row.expires_at, ...(expiredBefore ? { previous_expired: true } : {}) },
    ...(v ? { policy: verdictData(v) } : { policy: { decision: row.policy_decision, rule: row.policy_rule } }),
  };
  return outcome(
    'execute.confirmation',
    'waiting_confirmation',
    data,
    `${expiredBefore ? 'The earlier confirmation expired. ' : ''}Needs the user's confirmation: ${summary}. Ask the user; if they agree, repeat the call with user_confirmed=true and idempotency_key=${key} (valid until ${new Date(row.expires_at ?? 0).toISOString()}).`,
    {
      context: { remote_session_id: row.session_id, execution_task_id: row.id, ...(row.purpose ? { purpose: row.purpose } : {}) },
      hints: { preferred_behavior: 'ask_confirm' },
      actions: [action('execute', again, 'run it after the user confirmed')],
    },
  );
}
