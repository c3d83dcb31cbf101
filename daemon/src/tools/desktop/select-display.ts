import type { desktopSelectDisplayTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { outcome, type ToolOutcome } from '../envelope.js';
import { screenshotAction, sessionLine } from './present.js';

type Args = z.output<typeof desktopSelectDisplayTool.input>;

/** `desktop_select_display` (issue 15): every observation ends; take a new screenshot. */
export async function desktopSelectDisplayHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const v = await ctx.services.desktop.selectDisplay(rs, ctx.call.principal, args.desktop_session_id, args.display);
  return outcome('desktop.session', 'succeeded', { ...v }, `${sessionLine(v)} Display ${v.selected_display} selected; earlier observations ended.`, {
    context: { remote_session_id: rs },
    actions: [screenshotAction(rs, v.desktop_session_id, 'see the selected display')],
  });
}
