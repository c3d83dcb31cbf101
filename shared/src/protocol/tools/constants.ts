/**
 * The zod-free part of the tool catalogue (`@holdfast/shared/tool-constants`): names, `_meta` keys
 * and URIs that daemon modules loaded at start need. Importing `@holdfast/shared/tools` builds
 * every tool's zod schemas (≈ 6 MB of heap); the daemon imports that on its first tool call
 * instead of at start (issue 10, idle RSS; docs/performance.md "Memory"). Everything here is also
 * exported by `@holdfast/shared/tools`.
 */
export { DESKTOP_APP_URI, MCP_APP_MIME_TYPE, desktopViewUri, parseDesktopViewUri } from './desktop-panel.js';

/**
 * `_meta` key of a tool result that carries the §6.3 envelope when `structuredContent` is not
 * holdfast's own (`mcp_tool` passes an upstream result through, issue 13).
 */
export const ENVELOPE_META_KEY = 'holdfast/envelope';

/**
 * `_meta` key of a daemon result asking the adapter to show the user a URL through URL-mode
 * elicitation (MCP 2025-11-25; issue 12 `secret_provide`): `{mode: "url", url, message}`. The
 * adapter always removes it — the URL carries a one-time token and never reaches the model.
 */
export const ELICITATION_META_KEY = 'holdfast/elicitation';

/**
 * `hints.input_schema` of a `BAD_REQUEST` for arguments that do not match the tool's input schema
 * (SEP-1303: an `isError` result the model can correct). The adapter tells argument errors from
 * other refusals by it (its usage log counts them as `invalid`).
 */
export const INPUT_SCHEMA_HINT = 'see tools/list';

/** The keys of an activity update, in display order. */
export const ACTIVITY_KEYS = ['intent', 'hypothesis', 'evidence', 'conclusion', 'next', 'status'] as const;
export type ActivityKey = (typeof ACTIVITY_KEYS)[number];

/** Every tool name DESIGN §6.4 reserves (a principal may name one before it is served). */
export const RESERVED_TOOL_NAMES = [
  'workspace', 'session', 'read', 'edit', 'move_out', 'observe', 'progress', 'execute', 'plan', 'artifact', 'skill_tool', 'mcp_tool',
  'operation_batch', 'operation_manage', 'runtime_read', 'environment_read', 'environment', 'screenshot_capture', 'secret_provide',
  'desktop_open', 'desktop_list_devices', 'desktop_connect', 'desktop_get_session', 'desktop_screenshot', 'desktop_action',
  'desktop_set_control', 'desktop_select_display', 'desktop_disconnect', 'desktop_open_browser',
] as const;
