import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { DesktopSessionId, RemoteSessionId } from './desktop-common.js';

/** `desktop_disconnect` (issue 15): releases held keys and buttons, the device lock and the connection. */
export const desktopDisconnectTool = {
  name: 'desktop_disconnect',
  title: 'Disconnect desktop',
  description: 'Release held keys, the device and the connection.',
  input: z.object({ remote_session_id: RemoteSessionId, desktop_session_id: DesktopSessionId }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
