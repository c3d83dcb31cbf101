import type { MoveOutInput, MovePrepareArgs, MoveSubmitArgs } from '@holdfast/shared/tools';
import type { ToolContext } from '../context.js';
import { failure, type ToolOutcome } from '../envelope.js';
import { fileContext, openWorkspace } from '../file-access.js';
import { prepareMove } from './prepare.js';
import { submitMove } from './submit.js';

/**
 * `move_out` (issue 4): removal only ever goes to the trash — `prepare` freezes and asks,
 * `submit` re-checks and moves. The per-action fields were checked when the arguments were parsed
 * (MoveOutInput's action rules, issue 8). Both need the editor role (issue 14); submitting a move
 * another principal prepared needs the approver role (checked in submit).
 */
export async function moveOutHandler(args: MoveOutInput, ctx: ToolContext): Promise<ToolOutcome> {
  const ws = openWorkspace(ctx, args.remote_session_id, 'editor');
  try {
    return args.action === 'prepare' ? await prepareMove(ws, args as MovePrepareArgs) : await submitMove(ctx, ws, args as MoveSubmitArgs);
  } catch (err) {
    return failure(`move_out.${args.action}`, err, { context: fileContext(ws, args.action === 'prepare' ? args.purpose : undefined) });
  }
}
