import type { moveOutTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { failure, type ToolOutcome } from '../envelope.js';
import { fileContext, openWorkspace } from '../file-access.js';
import { prepareMove } from './prepare.js';
import { submitMove } from './submit.js';

type Args = z.output<typeof moveOutTool.input>;

/**
 * `move_out` (issue 4): removal only ever goes to the trash — `prepare` freezes and asks,
 * `submit` re-checks and moves. Both need the editor role (issue 14); submitting a move another
 * principal prepared needs the approver role (checked in submit).
 */
export async function moveOutHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const ws = openWorkspace(ctx, args.remote_session_id, 'editor');
  try {
    return args.action === 'prepare' ? await prepareMove(ws, args) : await submitMove(ctx, ws, args);
  } catch (err) {
    return failure(`move_out.${args.action}`, err, { context: fileContext(ws, args.action === 'prepare' ? args.purpose : undefined) });
  }
}
