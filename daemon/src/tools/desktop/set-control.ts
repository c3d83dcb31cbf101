import type { desktopSetControlTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { outcome, type ToolOutcome } from '../envelope.js';
import { sessionLine } from './present.js';

type Args = z.output<typeof desktopSetControlTool.input>;

/** `desktop_set_control` (issue 15 §7): within the device's grant; never lifts the person's pause. */
export async function desktopSetControlHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const v = await ctx.services.desktop.setControl(args.remote_session_id, ctx.call.principal, args.desktop_session_id, args.enabled);
  return outcome('desktop.session', 'succeeded', { ...v }, sessionLine(v), { context: { remote_session_id: args.remote_session_id } });
}
