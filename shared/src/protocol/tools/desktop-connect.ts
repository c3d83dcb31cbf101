import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { RemoteSessionId } from './desktop-common.js';

/**
 * `desktop_connect` (issue 15): connects an authorized device alias, or `virtual` (the session's
 * private display, whose DISPLAY the session shell gets). One agent connection per device.
 */
export const desktopConnectTool = {
  name: 'desktop_connect',
  title: 'Connect desktop',
  description:
    'Connect a device alias or "virtual" (a private display for programs started with execute). Returns desktop_session_id, or view_id if the person must approve.',
  input: z.object({ remote_session_id: RemoteSessionId, alias: z.string() }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
} satisfies ToolDef;
