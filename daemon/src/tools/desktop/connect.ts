import type { desktopConnectTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import { screenshotAction, sessionLine } from './present.js';

type Args = z.output<typeof desktopConnectTool.input>;

/**
 * `desktop_connect` (issue 15): a device alias or `virtual`. A device without auto-connect answers
 * `waiting_confirmation` with the view the person must answer.
 */
export async function desktopConnectHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const r = await ctx.services.desktop.connect(rs, ctx.call.principal, args.alias);
  if (r.kind === 'waiting') {
    return outcome(
      'desktop.waiting',
      'waiting_confirmation',
      { view_id: r.view.view_id, state: r.view.state, device: args.alias, pairing_command: r.pairing_command },
      `Device ${args.alias} needs the person's approval for each connection. Ask them to run \`${r.pairing_command}\` in their terminal, then call desktop_get_session(view_id).`,
      { context: { remote_session_id: rs }, actions: [action('desktop_get_session', { remote_session_id: rs, view_id: r.view.view_id }, 'wait for the person to connect it')] },
    );
  }
  const v = r.session;
  const hint = v.x_display ? ` Programs you start with execute now get DISPLAY=${v.x_display}.` : '';
  return outcome('desktop.connected', 'succeeded', { ...v }, `${sessionLine(v)}${hint}`, { context: { remote_session_id: rs }, actions: [screenshotAction(rs, v.desktop_session_id, 'see the screen')] });
}
