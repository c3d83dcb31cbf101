import * as z from 'zod';
import { OperationLimits } from '../../constants.js';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanArray, leanInt, leanString } from './lean.js';

/** Actions of `operation_manage` (issue 12). */
export const OperationAction = z.enum(['status', 'wait', 'result', 'cancel', 'confirm']);
export type OperationAction = z.infer<typeof OperationAction>;

/**
 * `operation_manage` (issue 12, docs/operations.md): `status` and `result` of one `operation_id`
 * or of `operation_ids` (≤ 32); `wait` (up to {@link OperationLimits.WAIT_MS}, then the expanded
 * step results); `result` pages the step results by `offset`; `cancel` returns once every running
 * step has stopped; `confirm` runs the waiting step's confirmed call after the user agreed.
 */
export const operationManageTool = {
  name: 'operation_manage',
  title: 'Operations',
  description: 'wait: step results; result: paged by offset; confirm: the waiting step, after the user agreed; operation_ids: status/result.',
  input: z.object({
    action: OperationAction,
    remote_session_id: z.string(),
    operation_id: leanString(40).optional(),
    operation_ids: leanArray(leanString(40), OperationLimits.IDS_MAX).optional(),
    offset: leanInt().optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
