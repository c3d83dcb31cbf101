import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { DesktopSessionId, RemoteSessionId } from './desktop-common.js';

/** `desktop_select_display` (issue 15): which monitor screenshots and actions use; observations end. */
export const desktopSelectDisplayTool = {
  name: 'desktop_select_display',
  title: 'Select display',
  description: 'Pick the monitor (index); ends all observations.',
  input: z.object({ remote_session_id: RemoteSessionId, desktop_session_id: DesktopSessionId, display: z.number() }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
