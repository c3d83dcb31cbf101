import type { desktopDisconnectTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { outcome, type ToolOutcome } from '../envelope.js';
import { sessionLine } from './present.js';

type Args = z.output<typeof desktopDisconnectTool.input>;

/** `desktop_disconnect` (issue 15): held keys and buttons, the device lock and the connection are released. */
export async function desktopDisconnectHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const v = await ctx.services.desktop.disconnect(args.remote_session_id, ctx.call.principal, args.desktop_session_id);
  return outcome('desktop.session', 'succeeded', { ...v }, sessionLine(v), { context: { remote_session_id: args.remote_session_id } });
}
