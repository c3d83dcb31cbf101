import type { ViewView } from '@holdfast/shared/protocol';
import type { desktopOpenTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { viewCommand } from '../../desktop/desktop-panel.js';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';

type Args = z.output<typeof desktopOpenTool.input>;

/**
 * `desktop_open` (issues 15, 16): a view for the person, answered at once. How it reaches them
 * follows the panel mode (docs/desktop.md): an MCP Apps view in this client, the panel page opened
 * in their browser, the terminal viewer, or the pairing command only. The page's one-time secret
 * never appears here: `panel_url` is the bare page address.
 */
export async function desktopOpenHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const mode = ctx.services.desktopPanel.modeFor(ctx.call);
  const r = await ctx.services.desktop.openView(rs, ctx.call.principal, args.alias, mode);
  return viewOutcome(rs, r.view, r.pairing_command);
}

/** The envelope of a view just opened or re-presented (`desktop_open`, `desktop_connect` waiting, `desktop_open_browser`). */
export function viewOutcome(rs: string, v: ViewView, pairing: string, extraText = ''): ToolOutcome {
  const data: Record<string, unknown> = {
    view_id: v.view_id,
    state: v.state,
    device: v.device,
    panel: v.panel ?? 'off',
    panel_url: v.panel_url ?? null,
    browser_opened: v.browser_opened ?? null,
    app_state: v.app_state ?? null,
    pairing_command: pairing,
  };
  if (v.panel === 'terminal') data.view_command = viewCommand(v.view_id);
  const then = 'then call desktop_get_session(view_id) (it waits up to 25 s per call).';
  let text: string;
  if (v.panel === 'apps') text = `The desktop panel is shown in this conversation. The person connects a desktop with \`${pairing}\` (or in their browser); ${then}`;
  else if (v.panel === 'browser' && v.browser_opened) text = `Opened the desktop panel in the person's browser (${v.panel_url}). Ask them to pick and connect a desktop there; ${then}`;
  else if (v.panel === 'browser') text = `No browser could be opened for the person. Ask them to run \`${pairing}\` in their terminal (it shows a one-time link to the panel, or lets them pick there); ${then}`;
  else if (v.panel === 'terminal') text = `Ask the person to run \`${pairing}\` in their terminal to connect a desktop, and \`${viewCommand(v.view_id)}\` to watch it there; ${then}`;
  else text = `Ask the person to run \`${pairing}\` in their terminal to pick and connect a desktop; ${then}`;
  return outcome('desktop.view', 'waiting_confirmation', data, `${extraText}${text}`, {
    context: { remote_session_id: rs },
    actions: [action('desktop_get_session', { remote_session_id: rs, view_id: v.view_id }, 'wait for the person')],
  });
}
