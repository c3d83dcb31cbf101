import { CLIENT_CAPABILITIES_META_KEY, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION_ID } from '@holdfast/shared/tools';

/**
 * True when a client's capabilities declare the MCP Apps UI extension with HTML views
 * (`capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes` includes
 * `text/html;profile=mcp-app`; MCP Apps SEP-1865, "Client<>Server Capability Negotiation").
 */
export function declaresMcpApps(capabilities: unknown): boolean {
  const ext = (capabilities as { extensions?: Record<string, { mimeTypes?: unknown } | undefined> } | undefined)?.extensions?.[MCP_APPS_EXTENSION_ID];
  return Array.isArray(ext?.mimeTypes) && ext.mimeTypes.includes(MCP_APP_MIME_TYPE);
}

/**
 * Whether the client behind a request renders MCP Apps views (issue 16 §6): from the request's
 * own `clientCapabilities` (protocol revision 2026-07-28, per-request `_meta` envelope), else from
 * what it declared at `initialize` (2025-11-25 and stdio).
 */
export function clientRendersApps(server: Server, ctx: ServerContext): boolean {
  const perRequest = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  if (perRequest !== undefined) return declaresMcpApps(perRequest);
  return declaresMcpApps(server.getClientCapabilities());
}
