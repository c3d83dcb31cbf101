import { HoldfastError } from '@holdfast/shared/errors';
import type { desktopGetSessionTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import { screenshotAction, sessionLine } from './present.js';

type Args = z.output<typeof desktopGetSessionTool.input>;

/**
 * `desktop_get_session` (issue 15): exactly one of `desktop_session_id` (its state; a closed one
 * answers `closed`) or `view_id` (waits up to `wait_ms` for the person, then `wait_timed_out`).
 */
export async function desktopGetSessionHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const context = { remote_session_id: rs };
  if ((args.desktop_session_id === undefined) === (args.view_id === undefined)) {
    throw new HoldfastError('BAD_REQUEST', 'give exactly one of desktop_session_id and view_id', { retryable: false });
  }
  if (args.desktop_session_id !== undefined) {
    const v = await ctx.services.desktop.getSession(rs, ctx.call.principal, args.desktop_session_id);
    const actions = v.state === 'closed' ? [action('desktop_connect', { remote_session_id: rs, alias: v.device }, 'connect again (a new desktop session)')] : [screenshotAction(rs, v.desktop_session_id, 'see the screen')];
    return outcome('desktop.session', 'succeeded', { ...v }, sessionLine(v), { context, actions });
  }
  const r = await ctx.services.desktop.waitView(rs, ctx.call.principal, args.view_id!, args.wait_ms);
  const data = { ...r.view, session: r.session };
  if (r.view.state === 'waiting' && r.view.app_state === 'not_confirmed') {
    // Issue 16 §6: the client did not show its MCP Apps view within 10 s; nothing else opens by itself.
    return outcome('desktop.view', 'waiting_confirmation', data, `This client did not show the desktop view of ${r.view.view_id} (not_confirmed). Call desktop_open_browser(view_id) to open it in the person's browser, or ask them to run \`holdfast desktop pair ${r.view.view_id}\`.`, {
      context,
      actions: [
        action('desktop_open_browser', { remote_session_id: rs, view_id: r.view.view_id }, "open the panel in the person's browser"),
        action('desktop_get_session', { remote_session_id: rs, view_id: r.view.view_id }, 'keep waiting'),
      ],
    });
  }
  if (r.view.state === 'waiting') {
    return outcome('desktop.view', 'waiting_confirmation', data, `The person has not connected a desktop for ${r.view.view_id} yet (waited ${args.wait_ms} ms).`, {
      context,
      actions: [action('desktop_get_session', { remote_session_id: rs, view_id: r.view.view_id }, 'keep waiting')],
    });
  }
  if (r.view.state === 'closed' || !r.session) return outcome('desktop.view', 'succeeded', data, `The person closed view ${r.view.view_id}; no desktop was connected.`, { context });
  return outcome('desktop.view', 'succeeded', data, sessionLine(r.session), { context, actions: [screenshotAction(rs, r.session.desktop_session_id, 'see the screen')] });
}
