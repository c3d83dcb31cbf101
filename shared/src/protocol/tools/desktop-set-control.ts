import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { DesktopSessionId, RemoteSessionId } from './desktop-common.js';

/** `desktop_set_control` (issue 15 §7): the agent's control switch, within what the device and the person allow. */
export const desktopSetControlTool = {
  name: 'desktop_set_control',
  title: 'Desktop control',
  description: "Turn your input on/off within the device's grant (never lifts a pause).",
  input: z.object({ remote_session_id: RemoteSessionId, desktop_session_id: DesktopSessionId, enabled: z.boolean() }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
