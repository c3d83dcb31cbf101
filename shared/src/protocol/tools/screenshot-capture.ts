import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { MaxLongEdge, RemoteSessionId, SourceRect } from './desktop-common.js';

/**
 * `screenshot_capture` (issue 15 §8, MCPX): a purpose-bound image of an X display the person
 * allowed (`desktop.capture_displays`) or of a connected desktop session. Exactly one of
 * `display` and `desktop_session_id` (checked by the daemon). Never written to disk.
 */
export const screenshotCaptureTool = {
  name: 'screenshot_capture',
  title: 'Capture screen',
  description: 'PNG of an allowed X display (e.g. :0) or a desktop_session_id, for a stated purpose. Never saved.',
  input: z.object({
    remote_session_id: RemoteSessionId,
    purpose: z.string().min(1).max(200),
    display: z.string().optional(),
    desktop_session_id: z.string().optional(),
    max_long_edge: MaxLongEdge,
    rect: SourceRect,
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;
