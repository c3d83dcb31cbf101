import type { desktopPanelTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { outcome, type ToolOutcome } from '../envelope.js';

type Args = z.output<typeof desktopPanelTool.input>;

/**
 * `desktop_panel` (issue 16 §6), called by the MCP Apps view `ui://holdfast/desktop.html`:
 * `ready` confirms the view is displayed; `ready` and `ticket` carry a one-time video ticket once
 * the person connected a desktop (the video then flows from the driver to the view directly);
 * `pause` is the person's pause lock. No action lifts a pause.
 */
export async function desktopPanelHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const r = await ctx.services.desktopPanel.app(args.remote_session_id, ctx.call.principal, args.view_id, args.action);
  const what = r.view.state === 'connected' ? `connected (${r.session?.device ?? r.view.desktop_session_id})${r.session?.paused ? ', paused' : ''}` : r.view.state;
  return outcome('desktop.panel', 'succeeded', { view: r.view, ticket: r.ticket, session: r.session }, `View ${r.view.view_id}: ${what}.`, { context: { remote_session_id: args.remote_session_id } });
}
