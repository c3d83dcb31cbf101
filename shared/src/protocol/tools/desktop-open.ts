import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { RemoteSessionId } from './desktop-common.js';

/** `desktop_open` (issue 15): asks the person to pick and connect a desktop; answers at once. */
export const desktopOpenTool = {
  name: 'desktop_open',
  title: 'Ask for a desktop',
  description: 'Ask the person to connect a desktop. Returns view_id and a pairing_command for them; then call desktop_get_session(view_id).',
  input: z.object({ remote_session_id: RemoteSessionId, alias: z.string().optional() }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;
