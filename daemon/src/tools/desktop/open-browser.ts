import type { desktopOpenBrowserTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { HoldfastError } from '@holdfast/shared/errors';
import { action, failure, outcome, type ToolOutcome } from '../envelope.js';

type Args = z.output<typeof desktopOpenBrowserTool.input>;

/**
 * `desktop_open_browser` (issue 16 §6): the explicit browser fallback for a view the client did not
 * show (`app_state: not_confirmed`) or the person closed: opens its panel page in their browser
 * with a fresh one-time secret, which never appears in the result.
 */
export async function desktopOpenBrowserHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const r = await ctx.services.desktopPanel.openBrowser(rs, ctx.call.principal, args.view_id);
  const wait = action('desktop_get_session', { remote_session_id: rs, view_id: args.view_id }, 'wait for the person');
  if (r.opened) {
    return outcome('desktop.view', 'succeeded', { view_id: args.view_id, opened: true, panel_url: r.panel_url }, `Opened the desktop panel in the person's browser (${r.panel_url}); then call desktop_get_session(view_id).`, {
      context: { remote_session_id: rs },
      actions: [wait],
    });
  }
  const err = new HoldfastError('PANEL_UNAVAILABLE', `no browser could be opened (${r.detail}); ask the person to run \`holdfast desktop pair ${args.view_id}\` in their terminal`, { retryable: false });
  return failure('desktop.view', err, { context: { remote_session_id: rs }, data: { view_id: args.view_id, opened: false, panel_url: r.panel_url, detail: r.detail }, actions: [wait] });
}
