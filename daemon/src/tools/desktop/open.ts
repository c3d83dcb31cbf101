import type { desktopOpenTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';

type Args = z.output<typeof desktopOpenTool.input>;

/** `desktop_open` (issue 15): a view for the person; answers at once with its pairing command. */
export async function desktopOpenHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = args.remote_session_id;
  const r = await ctx.services.desktop.openView(rs, ctx.call.principal, args.alias);
  return outcome(
    'desktop.view',
    'waiting_confirmation',
    { view_id: r.view.view_id, state: r.view.state, device: r.view.device, pairing_command: r.pairing_command },
    `Ask the person to run \`${r.pairing_command}\` in their terminal to pick and connect a desktop; then call desktop_get_session(view_id) (it waits up to 25 s per call).`,
    { context: { remote_session_id: rs }, actions: [action('desktop_get_session', { remote_session_id: rs, view_id: r.view.view_id }, 'wait for the person')] },
  );
}
