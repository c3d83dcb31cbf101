/** URI of the MCP Apps view of the desktop tools (issue 16 §6). */
export const DESKTOP_APP_URI = 'ui://holdfast/desktop.html';
/** MIME type of MCP Apps HTML resources (MCP Apps extension, SEP-1865). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** Extension id clients declare in `capabilities.extensions` to render MCP Apps views. */
export const MCP_APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/**
 * The resource the MCP Apps view reads for its view (issue 16 §6):
 * `holdfast://remote-sessions/{remote_session_id}/desktop-views/{view_id}` (JSON). Reading it
 * reports the view as displayed (`app_state: confirmed`) and gives a one-time video ticket once a
 * desktop is connected for it — a read, not a tool, so it costs the model's tool list nothing.
 */
export function desktopViewUri(remoteSessionId: string, viewId: string): string {
  return `holdfast://remote-sessions/${remoteSessionId}/desktop-views/${viewId}`;
}

/** `{remote_session_id, view_id}` of a {@link desktopViewUri}, or null. */
export function parseDesktopViewUri(uri: string): { remote_session_id: string; view_id: string } | null {
  const m = /^holdfast:\/\/remote-sessions\/([A-Za-z0-9_]{1,64})\/desktop-views\/(view_[A-Za-z0-9]{1,64})$/.exec(uri);
  return m ? { remote_session_id: m[1]!, view_id: m[2]! } : null;
}
