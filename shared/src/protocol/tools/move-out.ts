import * as z from 'zod';
import { withActionRules } from './action-rules.js';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/** One `move_out` target: an explicit file, directory or symlink inside the workspace. */
export const MoveTarget = z.strictObject({
  path: z.string().min(1),
  kind: z.enum(['file', 'directory', 'symlink']),
});
export type MoveTarget = z.infer<typeof MoveTarget>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `move_out` input (issue 4; flat since issue 8): `action=prepare` (remote_session_id, purpose,
 * targets, optional idempotency_key) freezes a manifest; `action=submit` takes exactly
 * remote_session_id and confirmation_uuid. Unknown fields are refused.
 */
export const MoveOutInput = withActionRules(
  z.strictObject({
    action: z.enum(['prepare', 'submit']),
    remote_session_id: z.string(),
    purpose: z.string().min(1).max(500).optional().describe('prepare: why (shown when confirming)'),
    targets: z.array(MoveTarget).min(1).max(100).optional().describe('prepare: what to move'),
    idempotency_key: z.string().min(1).max(200).optional(),
    confirmation_uuid: z.string().regex(UUID, 'a UUID from action=prepare').optional().describe('submit: from prepare'),
  }),
  {
    prepare: { requires: ['purpose', 'targets'], accepts: ['idempotency_key'] },
    submit: { requires: ['confirmation_uuid'] },
  },
  ['remote_session_id'],
);
export type MoveOutInput = z.output<typeof MoveOutInput>;
/** Parsed `prepare` arguments (the refinement guarantees purpose and targets). */
export type MovePrepareArgs = MoveOutInput & { action: 'prepare'; purpose: string; targets: MoveTarget[] };
/** Parsed `submit` arguments (the refinement guarantees confirmation_uuid and nothing else). */
export type MoveSubmitArgs = MoveOutInput & { action: 'submit'; confirmation_uuid: string };

/**
 * `move_out` (issue 4): removal only ever goes to the trash. `prepare` freezes a manifest and asks
 * for confirmation; `submit` re-checks it and moves the targets to the FreeDesktop trash.
 */
export const moveOutTool = {
  name: 'move_out',
  title: 'Move files to the trash',
  description:
    'Remove workspace files, directories or symlinks by moving them to the trash (nothing is deleted; symlinks move as links). action=prepare freezes what will move and returns a confirmation_uuid: ask the user, ' +
    'then call action=submit with only remote_session_id and confirmation_uuid.',
  input: MoveOutInput,
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  meta: { 'holdfast/actions': { prepare: { readOnlyHint: true }, submit: { readOnlyHint: false, destructiveHint: true } } },
} satisfies ToolDef;
