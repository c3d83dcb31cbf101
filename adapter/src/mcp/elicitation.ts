import type { CallContext } from '@holdfast/shared/control';
import { ELICITATION_META_KEY, type UrlElicitationRequest } from '@holdfast/shared/tools';
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, type InputRequiredResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Era, ToolResult } from './tool-call.js';

/** Key of holdfast's URL elicitation among a retried call's `inputResponses`. */
export const URL_ELICITATION_INPUT_KEY = 'holdfast_url';

type ElicitationAnswer = NonNullable<NonNullable<CallContext['elicitation']>['response']>;

/**
 * Whether the client of this request declared URL-mode elicitation (MCP 2025-11-25
 * `capabilities.elicitation.url`): on a 2026-07-28 request from its per-request `_meta`, on a 2025
 * connection (or stdio) from its `initialize`. A stateless 2025 request has neither, so no.
 */
export function supportsUrlElicitation(era: Era, server: Server, ctx: ServerContext): boolean {
  const caps = era === 'modern' ? ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: { url?: unknown } } | undefined) : server.getClientCapabilities();
  return caps?.elicitation?.url !== undefined && caps.elicitation.url !== null;
}

/** The user's answer to holdfast's URL elicitation when the client re-sends the call with it. */
export function elicitationAnswer(ctx: ServerContext): ElicitationAnswer | undefined {
  const r = ctx.mcpReq.inputResponses?.[URL_ELICITATION_INPUT_KEY] as { action?: unknown } | undefined;
  const a = r?.action;
  return a === 'accept' || a === 'decline' || a === 'cancel' ? a : undefined;
}

/**
 * Takes the daemon's URL-elicitation request off a result (issue 12): the URL must never reach the
 * model. When the client supports URL mode and has not answered yet, the call answers
 * `input_required` with the URL elicitation instead (the SDK sends it as `elicitation/create` to a
 * 2025 client and re-runs the call with the answer; a 2026 client answers and re-sends the call
 * itself); the re-run forwards the answer to the daemon in `CallContext.elicitation`.
 */
export function resolveElicitation(result: ToolResult, supported: boolean, answered: boolean): ToolResult | InputRequiredResult {
  const request = result._meta?.[ELICITATION_META_KEY] as UrlElicitationRequest | undefined;
  if (request === undefined) return result;
  const { [ELICITATION_META_KEY]: _drop, ...meta } = result._meta!;
  const clean: ToolResult = { ...result, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
  if (Object.keys(meta).length === 0) delete clean._meta;
  if (!supported || answered) return clean;
  return inputRequired({ inputRequests: { [URL_ELICITATION_INPUT_KEY]: inputRequired.elicitUrl({ message: request.message, url: request.url }) } });
}
