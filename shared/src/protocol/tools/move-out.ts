import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/** One `move_out` target: an explicit file, directory or symlink inside the workspace. */
export const MoveTarget = z.strictObject({
  path: z.string().min(1),
  kind: z.enum(['file', 'directory', 'symlink']),
});
export type MoveTarget = z.infer<typeof MoveTarget>;

/** `move_out(action="prepare")`: freeze a manifest (read-only); returns a confirmation_uuid. */
export const MovePrepareInput = z.strictObject({
  action: z.literal('prepare'),
  remote_session_id: z.string(),
  purpose: z.string().min(1).max(500).describe('Why (shown to the user when confirming)'),
  targets: z.array(MoveTarget).min(1).max(100),
  idempotency_key: z.string().min(1).max(200).optional(),
});

/** `move_out(action="submit")`: exactly `remote_session_id` and `confirmation_uuid`, nothing else. */
export const MoveSubmitInput = z.strictObject({
  action: z.literal('submit'),
  remote_session_id: z.string(),
  confirmation_uuid: z.uuid(),
});

/**
 * `move_out` (issue 4): removal only ever goes to the trash. `prepare` freezes a manifest and asks
 * for confirmation; `submit` re-checks it and moves the targets to the FreeDesktop trash.
 */
export const moveOutTool = {
  name: 'move_out',
  title: 'Move files to the trash',
  description:
    'Remove workspace files, directories or symlinks by moving them to the trash (nothing is deleted). action=prepare freezes what will move and returns a confirmation_uuid: ask the user to confirm, ' +
    'then call action=submit with only remote_session_id and confirmation_uuid. Symlinks move as links.',
  input: z.discriminatedUnion('action', [MovePrepareInput, MoveSubmitInput]),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  meta: { 'holdfast/actions': { prepare: { readOnlyHint: true }, submit: { readOnlyHint: false, destructiveHint: true } } },
} satisfies ToolDef;
