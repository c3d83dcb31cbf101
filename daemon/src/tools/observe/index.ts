import { HoldfastError } from '@holdfast/shared/errors';
import type { observeTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import type { ToolOutcome } from '../envelope.js';
import { diffView } from './diff.js';
import { historyView } from './history.js';
import { logsView } from './logs.js';
import { sessionView } from './session.js';
import { taskView } from './task.js';

/** Parsed arguments of `observe`. */
export type ObserveArgs = z.output<typeof observeTool.input>;
type View = (args: ObserveArgs, ctx: ToolContext) => Promise<ToolOutcome> | ToolOutcome;

/** One handler per view (`observe/<view>.ts`). `diff` belongs to the file tools (issue 4). */
const VIEWS: Partial<Record<ObserveArgs['view'], View>> = {
  diff: diffView,
  session: sessionView,
  task: taskView,
  logs: logsView,
  history: historyView,
};

/** `observe` (DESIGN §6.4): read-only views of a session; dispatches on `view`. */
export async function observeHandler(args: ObserveArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const view = VIEWS[args.view];
  if (!view) throw new HoldfastError('BAD_REQUEST', `observe view=${args.view} is not served by this build`);
  return view(args, ctx);
}
