import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { RemoteSessionId } from './desktop-common.js';

/** `desktop_list_devices` (issue 15): the desktops the person authorized, and whether each is free. */
export const desktopListDevicesTool = {
  name: 'desktop_list_devices',
  title: 'List desktops',
  description: 'Desktops you may connect: the person\'s aliases and "virtual" (a private display).',
  input: z.object({ remote_session_id: RemoteSessionId }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
