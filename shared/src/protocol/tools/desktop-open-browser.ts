import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { RemoteSessionId } from './desktop-common.js';

/**
 * `desktop_open_browser` (issue 16 §6): the explicit browser fallback when a view was not shown
 * (e.g. an MCP Apps view `not_confirmed`): opens the view's panel page in the person's browser
 * with a fresh one-time secret (never returned). A second browser is never opened by itself.
 */
export const desktopOpenBrowserTool = {
  name: 'desktop_open_browser',
  title: 'Panel',
  description: "Open view_id in the person's browser.",
  input: z.object({ remote_session_id: RemoteSessionId, view_id: z.string() }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;
