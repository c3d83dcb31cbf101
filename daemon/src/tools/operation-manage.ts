import { OperationLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';
import type { operationManageTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { operationData, operationOutcome } from '../operations/operation-view.js';
import { requireSessionAccess, roleAtLeast } from '../sessions/access.js';
import type { OperationRow } from '../store/operations-repo.js';
import type { SessionRow } from '../store/sessions-repo.js';
import type { ToolContext } from './context.js';
import { outcome, type ToolOutcome } from './envelope.js';
import { operationYieldMs } from './operation-batch.js';

type Args = z.output<typeof operationManageTool.input>;

/**
 * The operation `id` of `session` (looked up within the session: another session's id is not
 * found either).
 * @throws HoldfastError BAD_REQUEST (not an op_ id), OPERATION_NOT_FOUND, OPERATION_RESULT_EXPIRED.
 */
function requireOperation(ctx: ToolContext, session: SessionRow, id: string): OperationRow {
  if (!isId('operation', id)) throw new HoldfastError('BAD_REQUEST', `"${id}" is not an operation_id; pass the full op_… id operation_batch returned`, { retryable: false });
  const op = ctx.services.operations.repo.get(id);
  if (!op || op.session_id !== session.id) throw new HoldfastError('OPERATION_NOT_FOUND', `no operation ${id} in session ${session.id}`, { retryable: false });
  if (op.results_expired_at !== null) {
    throw new HoldfastError('OPERATION_RESULT_EXPIRED', `operation ${id} ended ${new Date(op.ended_at ?? op.results_expired_at).toISOString()} (${op.state}); its results have expired (retention.operation_days)`, {
      retryable: false,
      details: { state: op.state },
    });
  }
  return op;
}

/**
 * `operation_manage` (issue 12, docs/operations.md). `status`, `wait` and `result` need the viewer
 * role on the session; `confirm` runs the first step waiting for a confirmation (the one results
 * name as `waiting_step`); `cancel` and `confirm` need the editor role — and confirming a step of another
 * principal's operation the approver role, as confirming their call directly would (issue 14).
 * `status` and `result` with `operation_ids` answer each id on its own (an unknown or expired one
 * carries its error).
 */
export async function operationManageHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const need = args.action === 'cancel' || args.action === 'confirm' ? 'editor' : 'viewer';
  const { session, role } = requireSessionAccess(ctx, args.remote_session_id, need);
  const { repo, runner } = ctx.services.operations;
  if (args.operation_ids !== undefined && args.operation_id === undefined) {
    if (args.action !== 'status' && args.action !== 'result') throw new HoldfastError('BAD_REQUEST', `operation_ids goes with action=status or result; ${args.action} takes one operation_id`, { retryable: false });
    return many(args, ctx, session);
  }
  if (args.operation_id === undefined) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs operation_id`, { retryable: false });
  const id = args.operation_id;
  let op = requireOperation(ctx, session, id);
  const type = `operation.${args.action}`;
  switch (args.action) {
    case 'status':
      return operationOutcome(type, op, repo.steps(id), 'none');
    case 'wait':
      await runner.waitSettled(id, operationYieldMs(ctx, OperationLimits.WAIT_MS), ctx.signal);
      op = repo.get(id)!;
      return operationOutcome(type, op, repo.steps(id), 'expanded');
    case 'result':
      return operationOutcome(type, op, repo.steps(id), 'page', args.offset ?? 0);
    case 'cancel':
      await runner.cancel(id);
      op = repo.get(id)!;
      return operationOutcome(type, op, repo.steps(id), 'none');
    case 'confirm': {
      const waiting = repo.steps(id).find((s) => s.state === 'waiting_confirmation');
      if (!waiting) throw new HoldfastError('BAD_REQUEST', `operation ${id} is ${op.state}: no step waits for a confirmation`, { retryable: false });
      if (op.principal !== ctx.call.principal && !roleAtLeast(role, 'approver')) {
        throw new HoldfastError('ROLE_REQUIRED', `operation ${id} belongs to principal "${op.principal}"; confirming its step needs the approver role on ${session.id} (you hold ${role})`, {
          retryable: false,
          details: { role, need: 'approver' },
        });
      }
      runner.confirm(id, waiting.step_id);
      await runner.waitSettled(id, operationYieldMs(ctx, undefined), ctx.signal);
      op = repo.get(id)!;
      return operationOutcome(type, op, repo.steps(id), op.state === 'running' ? 'none' : 'expanded');
    }
  }
}

/** `status`/`result` of several operations; results share one page budget. */
function many(args: Args, ctx: ToolContext, session: SessionRow): ToolOutcome {
  const ids = [...new Set(args.operation_ids ?? [])];
  if (ids.length === 0) throw new HoldfastError('BAD_REQUEST', 'operation_ids is empty', { retryable: false });
  const repo = ctx.services.operations.repo;
  const lines: string[] = [];
  const operations = ids.map((id) => {
    try {
      const op = requireOperation(ctx, session, id);
      const data = operationData(op, repo.steps(id), args.action === 'result' ? 'expanded' : 'none');
      lines.push(`${id} ${op.state} (state_sequence ${op.state_sequence})`);
      return data;
    } catch (err) {
      const e = err as HoldfastError;
      lines.push(`${id}: ${e.code}`);
      return { operation_id: id, error: { code: e.code, message: e.message, retryable: false } };
    }
  });
  return outcome(`operation.${args.action}`, 'succeeded', { operations }, lines.join('\n'), { context: { remote_session_id: session.id } });
}
