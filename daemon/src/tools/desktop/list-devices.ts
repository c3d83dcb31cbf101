import type { desktopListDevicesTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';

type Args = z.output<typeof desktopListDevicesTool.input>;

/** `desktop_list_devices` (issue 15): the person's authorized devices and the private display. */
export async function desktopListDevicesHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const data = await ctx.services.desktop.listDevices(args.remote_session_id, ctx.call.principal);
  const devices = data.devices as { alias: string; authorization: string; state: string }[];
  const text = `${devices.length} device(s): ${devices.map((d) => `${d.alias} (${d.authorization}, ${d.state})`).join(', ') || 'none authorized'}; plus "virtual", this session's private display.`;
  return outcome('desktop.devices', 'succeeded', data, text, {
    context: { remote_session_id: args.remote_session_id },
    actions: [action('desktop_connect', { remote_session_id: args.remote_session_id, alias: devices[0]?.alias ?? 'virtual' }, 'connect a desktop')],
  });
}
