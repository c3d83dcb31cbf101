import type { CallContext } from '@holdfast/shared/control';
import { LinkTimeouts, OperationLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { isId, newId } from '@holdfast/shared/ids';
import type { operationBatchTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { planBatch, type BatchPlan } from '../operations/batch-plan.js';
import { operationOutcome } from '../operations/operation-view.js';
import { requireSessionAccess } from '../sessions/access.js';
import type { OperationRow } from '../store/operations-repo.js';
import type { ToolContext } from './context.js';
import type { ToolOutcome } from './envelope.js';

type Args = z.output<typeof operationBatchTool.input>;

/** A wait ends this long before the configured request timeout, ms (as execute). */
const REQUEST_MARGIN_MS = 5000;

/** The wait of a call: `yield_time_ms` (default 10 s) capped below the request timeout; 0 for async. */
export function operationYieldMs(ctx: ToolContext, yieldMs: number | undefined): number {
  const ceiling = Math.max(1000, ctx.services.config.config.limits.request_timeout_ms - REQUEST_MARGIN_MS);
  return Math.min(yieldMs ?? OperationLimits.DEFAULT_YIELD_MS, LinkTimeouts.MAX_WAIT_MS, ceiling);
}

/** An existing operation a repeat names must be the same request: same session, principal, run id and steps. */
function sameRequest(op: OperationRow, sessionId: string, principal: string, runId: string | null, plan: BatchPlan): void {
  if (op.session_id !== sessionId || op.principal !== principal || op.run_id !== runId || op.steps_sha256 !== plan.digest) {
    throw new HoldfastError('IDEMPOTENCY_CONFLICT', `operation_id ${op.id} is already used for another batch (other steps, run_id or session); use a new operation_id for a new batch`, {
      retryable: false,
      details: { operation_id: op.id },
    });
  }
  if (op.results_expired_at !== null) {
    throw new HoldfastError('OPERATION_RESULT_EXPIRED', `operation ${op.id} ran already and its results have expired (retention); it is not run again`, { retryable: false });
  }
}

/**
 * `operation_batch` (issue 12, docs/operations.md): checks the whole batch (batch-plan.ts: nothing
 * runs when one step is refused), stores the operation and its steps, then starts it and — with
 * `execution_mode: "sync"` — waits up to `yield_time_ms` for it to end or to need a confirmation.
 * With a caller-chosen `operation_id` (and `run_id`), a repeat of the same batch returns the
 * original operation and never runs it again; the same ids with other steps are
 * `IDEMPOTENCY_CONFLICT`. Needs the viewer role: each step checks its own role when it runs.
 */
export async function operationBatchHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const { session } = requireSessionAccess(ctx, args.remote_session_id, 'viewer');
  if (args.operation_id !== undefined && !isId('operation', args.operation_id)) {
    throw new HoldfastError('BAD_REQUEST', `operation_id must be "op_" followed by a 26-character ULID (e.g. ${newId('operation')}), or left out`, { retryable: false });
  }
  const plan = planBatch(args.steps, session.id, ctx.call.allowed_tools);
  const { repo, runner } = ctx.services.operations;
  const runId = args.run_id ?? null;
  const id = args.operation_id ?? newId('operation');
  let replay = false;
  const known = args.operation_id !== undefined ? repo.get(id) : undefined;
  if (known) {
    sameRequest(known, session.id, ctx.call.principal, runId, plan);
    replay = true;
  } else {
    const now = Date.now();
    const { progress_id: _p, elicitation: _e, ...callContext } = ctx.call as CallContext & { elicitation?: unknown };
    try {
      repo.insert(
        {
          id,
          session_id: session.id,
          workspace: session.workspace,
          principal: ctx.call.principal,
          run_id: runId,
          steps_sha256: plan.digest,
          state: 'running',
          state_sequence: 1,
          call_context: JSON.stringify(callContext),
          created_at: now,
          updated_at: now,
        },
        plan.steps.map((s, i) => ({
          operation_id: id,
          step_id: s.id,
          position: i,
          tool: s.tool,
          arguments: JSON.stringify(s.arguments),
          depends_on: JSON.stringify(s.depends_on),
          state: 'pending',
          state_sequence: 1,
          // An execute run is keyed: the next daemon finds its task, and a repeat never runs it twice.
          idempotency_key:
            s.tool === 'execute' && (s.arguments.action ?? 'run') === 'run' ? (typeof s.arguments.idempotency_key === 'string' ? s.arguments.idempotency_key : `${id}:${s.id}`) : null,
        })),
      );
    } catch (err) {
      // The same ids sent twice at once: the other call stored it first.
      const other = repo.get(id);
      if (!other) throw err;
      sameRequest(other, session.id, ctx.call.principal, runId, plan);
      replay = true;
    }
    if (!replay) runner.start(id);
  }
  const wait = args.execution_mode === 'async' ? 0 : operationYieldMs(ctx, args.yield_time_ms);
  if (wait > 0) await runner.waitSettled(id, wait, ctx.signal);
  const op = repo.get(id)!;
  return operationOutcome('operation.batch', op, repo.steps(id), op.state === 'running' ? 'none' : 'expanded', 0, replay ? { idempotent_replay: true } : {});
}
