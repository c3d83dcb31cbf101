import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanArray, leanString } from './lean.js';

/** Statuses of a progress report (issue 11). */
export const ProgressStatus = z.enum(['milestone', 'waiting', 'blocked', 'failed', 'completed']);
export type ProgressStatus = z.infer<typeof ProgressStatus>;

/**
 * `progress` (issue 11, DESIGN §6.4): the session's one-line state for the person watching. Not a
 * heartbeat: the same status and `current` again within 10 s is acknowledged without a new event.
 * `completed` needs `result` (what was verified). `session(open)` returns the latest report.
 */
export const progressTool = {
  name: 'progress',
  title: 'Report progress',
  description:
    'Tell the user where work stands: status, current (one line), result (verified; required for completed). Repeats within 10 s are not recorded.',
  input: z.object({
    remote_session_id: z.string(),
    status: ProgressStatus,
    current: leanString(500, 1),
    result: leanArray(leanString(2000, 1), 50).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
