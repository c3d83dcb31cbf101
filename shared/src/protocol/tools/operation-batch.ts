import * as z from 'zod';
import { OperationLimits } from '../../constants.js';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanArray, leanInt, leanString } from './lean.js';
import { PassThroughArguments } from './pass-through-arguments.js';

/** Tools a batch step may never name (issue 12): the operation tools themselves, and tools that need the user in the loop or end the session. */
export const UNBATCHABLE_TOOLS: readonly string[] = ['operation_batch', 'operation_manage', 'secret_provide', 'session'];

/** One step of a batch: an ordinary call of a session tool, run once every step in `depends_on` succeeded (checked strictly: unknown keys are refused). */
export const BatchStep = z.strictObject({
  id: leanString(64, 1),
  tool: leanString(64, 1),
  arguments: PassThroughArguments.optional(),
  depends_on: leanArray(leanString(64, 1), OperationLimits.STEPS_MAX).optional(),
});
export type BatchStep = z.infer<typeof BatchStep>;

/**
 * `operation_batch` (issue 12, docs/operations.md): 1–32 tool calls of one session as a dependency
 * graph, persisted before it is acknowledged. Independent steps run concurrently (at most
 * {@link OperationLimits.CONCURRENCY_MAX}); a failed step skips its dependents; a cycle, an
 * unknown dependency or a refused tool rejects the batch before anything runs. `sync` waits up to
 * `yield_time_ms`, `async` answers `accepted` at once; `run_id` + `operation_id` chosen by the
 * caller make a repeat return the original operation.
 */
export const operationBatchTool = {
  name: 'operation_batch',
  title: 'Batch tool calls',
  description:
    'Up to 32 tool calls (arguments: object or JSON) as one operation. A step runs once its depends_on succeeded, else skipped. ' +
    'async (or sync past yield_time_ms) gives operation_id for operation_manage. Same run_id+operation_id never reruns.',
  input: z.object({
    remote_session_id: z.string(),
    steps: leanArray(BatchStep, OperationLimits.STEPS_MAX),
    execution_mode: z.enum(['sync', 'async']).default('sync'),
    yield_time_ms: leanInt().optional(),
    run_id: leanString(200, 1).optional(),
    operation_id: leanString(40).optional().describe('op_+ULID'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
