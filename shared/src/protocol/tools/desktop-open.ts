import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { RemoteSessionId } from './desktop-common.js';

/**
 * `desktop_open` (issues 15, 16): asks the person to pick and connect a desktop; answers at once
 * with the `view_id`, the panel page URL (no secret in it) and how the view reached the person
 * (an MCP Apps view, a browser opened for them, the terminal viewer's command, or only the pairing
 * command). The one-time bootstrap secret of the page never appears in a result.
 */
export const desktopOpenTool = {
  name: 'desktop_open',
  title: 'Ask for desktop',
  description: 'Ask the person to connect a desktop. Returns view_id; then call desktop_get_session(view_id).',
  input: z.object({ remote_session_id: RemoteSessionId, alias: z.string().optional() }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;
