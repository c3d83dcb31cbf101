import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { DesktopSessionId, MaxLongEdge, RemoteSessionId, SourceRect } from './desktop-common.js';

/** `desktop_screenshot` (issue 15 §5): a PNG of the selected display and an observation to act on. */
export const desktopScreenshotTool = {
  name: 'desktop_screenshot',
  title: 'Desktop screenshot',
  description: 'PNG of the display, and an observation_id for actions (30 s).',
  input: z.object({ remote_session_id: RemoteSessionId, desktop_session_id: DesktopSessionId, max_long_edge: MaxLongEdge, rect: SourceRect }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
