import { HoldfastError } from '@holdfast/shared/errors';
import type { screenshotCaptureTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from './context.js';
import { outcome, type ToolOutcome } from './envelope.js';
import { pngContent } from './desktop/present.js';

type Args = z.output<typeof screenshotCaptureTool.input>;

/**
 * `screenshot_capture` (issue 15 §8, MCPX): a purpose-bound image of an X display the person
 * allowed (`desktop.capture_displays`) or of one of the session's desktop sessions. The image goes
 * back in the result only — never to the workspace or SQLite; the event log records the purpose.
 */
export async function screenshotCaptureHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const desktop = ctx.services.desktop;
  if ((args.display === undefined) === (args.desktop_session_id === undefined)) {
    throw new HoldfastError('BAD_REQUEST', 'give exactly one of display (an allowed X display such as ":0") and desktop_session_id', { retryable: false });
  }
  const opts = { max_long_edge: args.max_long_edge, rect: args.rect };
  if (args.display !== undefined) {
    const r = await desktop.captureDisplay(rs, ctx.call.principal, args.display, args.purpose, opts);
    const o = outcome('screenshot.capture', 'succeeded', { display: args.display, purpose: args.purpose, source_size: r.source_size, source_rect: r.source_rect, image_size: r.image_size }, `Captured ${args.display} (${r.source_size.width}x${r.source_size.height} → ${r.image_size.width}x${r.image_size.height}) for: ${args.purpose}.`, {
      context: { remote_session_id: rs, purpose: args.purpose },
    });
    o.extraContent = [pngContent(r.image)];
    return o;
  }
  const shot = await desktop.screenshot(rs, ctx.call.principal, args.desktop_session_id!, opts);
  desktop.noteCapture(rs, args.desktop_session_id!, args.purpose);
  const ob = shot.observation;
  const o = outcome('screenshot.capture', 'succeeded', { purpose: args.purpose, ...ob }, `Captured desktop ${args.desktop_session_id} (${ob.image_size.width}x${ob.image_size.height}) for: ${args.purpose}.`, {
    context: { remote_session_id: rs, purpose: args.purpose },
  });
  o.extraContent = [pngContent(shot.image)];
  return o;
}
