import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { RemoteSessionId } from './desktop-common.js';

/** URI of the MCP Apps view of the desktop tools (issue 16 §6). */
export const DESKTOP_APP_URI = 'ui://holdfast/desktop.html';
/** MIME type of MCP Apps HTML resources (MCP Apps extension, SEP-1865). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** Extension id clients declare in `capabilities.extensions` to render MCP Apps views. */
export const MCP_APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/**
 * `desktop_panel` (issue 16 §6): called by the MCP Apps view (`ui://holdfast/desktop.html`), not
 * by the model — listed only to clients that declare the UI extension, with `_meta.ui.visibility:
 * ["app"]` so hosts keep it from the model. `ready`: the view is displayed (confirms it) and gets
 * a one-time video-socket ticket; `ticket`: another ticket (after a reconnect); `pause`: the
 * person's pause lock (resuming needs the person's browser page or terminal: a tool the model
 * might reach never lifts a pause).
 */
export const desktopPanelTool = {
  name: 'desktop_panel',
  title: 'Desktop panel app',
  description: 'Desktop view app only: ready, ticket or pause.',
  input: z.object({ remote_session_id: RemoteSessionId, view_id: z.string(), action: z.enum(['ready', 'ticket', 'pause']) }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  meta: { ui: { resourceUri: DESKTOP_APP_URI, visibility: ['app'] } },
} satisfies ToolDef;

/**
 * True for a tool only an MCP Apps view calls: `_meta.ui.visibility` without `"model"` (SEP-1865,
 * "Visibility"). The adapter lists such tools only to clients that render apps, and refuses them
 * from the others.
 */
export function isAppOnlyTool(def: { meta?: Record<string, unknown> }): boolean {
  const visibility = (def.meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return Array.isArray(visibility) && !visibility.includes('model');
}
