import { HoldfastError } from '@holdfast/shared/errors';
import type { ActionParams } from '@holdfast/shared/protocol';
import type { desktopActionTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { failure, outcome, type ToolOutcome } from '../envelope.js';
import { observationLine, screenshotAction, withImage } from './present.js';

type Args = z.output<typeof desktopActionTool.input>;

/**
 * `desktop_action` (issue 15 §6). `submitted` → `succeeded`; `outcome_unknown` (the connection
 * dropped or timed out mid-send) → `interrupted` with `side_effect_possible: true` — check the
 * screen before doing it again, holdfast never replays it. An expired observation fails with a
 * screenshot action. With `observe_after` the fresh screenshot is the image content.
 */
export async function desktopActionHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const context = { remote_session_id: rs, ...(args.operation_id ? { operation_id: args.operation_id } : {}) };
  const p: ActionParams = { ...args };
  delete (p as Partial<Args>).remote_session_id;
  let r;
  try {
    r = await ctx.services.desktop.action(rs, ctx.call.principal, p);
  } catch (err) {
    if (err instanceof HoldfastError && err.code === 'OBSERVATION_EXPIRED') return failure('desktop.action', err, { context, actions: [screenshotAction(rs, args.desktop_session_id)] });
    throw err;
  }
  const { after, ...result } = r;
  const data: Record<string, unknown> = { ...result, observation: after?.observation ?? null };
  const what = `${r.action}${r.source_point ? ` at source (${r.source_point.x}, ${r.source_point.y})` : ''}${r.source_to ? ` to (${r.source_to.x}, ${r.source_to.y})` : ''}`;
  if (r.outcome === 'outcome_unknown') {
    return withImage(
      outcome('desktop.action', 'interrupted', data, `outcome_unknown: ${what} — ${r.detail}. holdfast will not send it again; look at the screen before repeating it.`, {
        context,
        hints: { side_effect_possible: true },
        actions: [screenshotAction(rs, args.desktop_session_id, 'see what happened')],
      }),
      after,
    );
  }
  const text = `${r.replayed ? 'Already done (same operation_id): ' : 'Sent '}${what}.${after ? ` ${observationLine(after.observation)}` : ''}`;
  return withImage(outcome('desktop.action', 'succeeded', data, text, { context, ...(r.replayed ? { hints: { idempotent_replay: true } } : {}), ...(after ? {} : { actions: [screenshotAction(rs, args.desktop_session_id, 'see the result')] }) }), after);
}
