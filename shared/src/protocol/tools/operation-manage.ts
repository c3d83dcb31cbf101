import * as z from 'zod';
import { OperationLimits } from '../../constants.js';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanArray, leanInt, leanString } from './lean.js';

/** Actions of `operation_manage` (issue 12). */
export const OperationAction = z.enum(['status', 'wait', 'result', 'cancel', 'confirm']);
export type OperationAction = z.infer<typeof OperationAction>;

/**
 * `operation_manage` (issue 12, docs/operations.md): `status` and `result` of one `operation_id`
 * or of `operation_ids` (≤ 32); `wait` (up to `yield_time_ms`, then the expanded step results);
 * `result` pages the step results by `offset`; `cancel` returns once every running step has
 * stopped; `confirm` runs a `waiting_confirmation` step's confirmed call after the user agreed.
 */
export const operationManageTool = {
  name: 'operation_manage',
  title: 'Manage operations',
  description:
    'An operation from operation_batch: status (states, state_sequence), wait (up to yield_time_ms, then step results), result (step results paged by offset), ' +
    'cancel (returns once running steps stopped), confirm (step_id waiting_confirmation, after the user agreed). status/result take operation_ids too.',
  input: z.object({
    action: OperationAction,
    remote_session_id: z.string(),
    operation_id: leanString(40).optional(),
    operation_ids: leanArray(leanString(40), OperationLimits.IDS_MAX).optional(),
    step_id: leanString(64).optional(),
    yield_time_ms: z.number().int().min(0).max(120000).optional(),
    offset: leanInt().optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
