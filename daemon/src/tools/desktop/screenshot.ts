import type { desktopScreenshotTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { outcome, type ToolOutcome } from '../envelope.js';
import { observationLine, withImage } from './present.js';

type Args = z.output<typeof desktopScreenshotTool.input>;

/** `desktop_screenshot` (issue 15 §5): PNG image content plus the observation in `data`. */
export async function desktopScreenshotHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const shot = await ctx.services.desktop.screenshot(rs, ctx.call.principal, args.desktop_session_id, { max_long_edge: args.max_long_edge, rect: args.rect });
  return withImage(outcome('desktop.screenshot', 'succeeded', { ...shot.observation }, observationLine(shot.observation), { context: { remote_session_id: rs } }), shot);
}
