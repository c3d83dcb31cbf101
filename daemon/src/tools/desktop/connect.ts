import type { desktopConnectTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { outcome, type ToolOutcome } from '../envelope.js';
import { viewOutcome } from './open.js';
import { screenshotAction, sessionLine } from './present.js';

type Args = z.output<typeof desktopConnectTool.input>;

/**
 * `desktop_connect` (issue 15): a device alias or `virtual`. A device without auto-connect answers
 * `waiting_confirmation` with the view the person must answer.
 */
export async function desktopConnectHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  // Only desktop_open's result is rendered by the MCP Apps view: a view opened here is shown as a client without apps would show it.
  const call = ctx.call.panel ? { panel: { ...ctx.call.panel, apps: false } } : ctx.call;
  const r = await ctx.services.desktop.connect(rs, ctx.call.principal, args.alias, false, ctx.services.desktopPanel.modeFor(call));
  if (r.kind === 'waiting') {
    const o = viewOutcome(rs, r.view, r.pairing_command, `Device ${args.alias} needs the person's approval for each connection. `);
    o.envelope.type = 'desktop.waiting';
    return o;
  }
  const v = r.session;
  const hint = v.x_display ? ` Programs you start with execute now get DISPLAY=${v.x_display}.` : '';
  return outcome('desktop.connected', 'succeeded', { ...v }, `${sessionLine(v)}${hint}`, { context: { remote_session_id: rs }, actions: [screenshotAction(rs, v.desktop_session_id, 'see the screen')] });
}
