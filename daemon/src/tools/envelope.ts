import type { ToolCallResult } from '@holdfast/shared/control';
import { HoldfastError, toWireError } from '@holdfast/shared/errors';
import { ENVELOPE_META_KEY } from '@holdfast/shared/tool-constants';
import type { Envelope, ResultAction, ResultContext, ResultStatus } from '@holdfast/shared/tools';

/**
 * What a tool handler returns: the DESIGN §6.3 envelope plus the short human-readable text that
 * becomes the result's text block (and optional extra content such as an image).
 */
export interface ToolOutcome {
  envelope: Envelope;
  text: string;
  extraContent?: ToolCallResult['content'];
  /**
   * A result passed through from elsewhere (an upstream `tools/call`, issue 13): its `content`,
   * `structuredContent` and `isError` are returned unchanged instead of `text` and the envelope,
   * which then travels in `_meta`.
   */
  passThrough?: { content: ToolCallResult['content']; structuredContent?: Record<string, unknown>; isError: boolean };
  /**
   * What the call's event records beyond what every call records (issue 11): `data` is merged into
   * the event's data (the observe stream shows it); `skip` records no event (a repeated progress
   * report). A handler that sets this gets its event written before the result is returned.
   */
  event?: { data?: Record<string, unknown>; skip?: boolean };
  /**
   * `_meta` of the result for the adapter, never shown to the model: `holdfast/elicitation` asks
   * the adapter to show the user a URL (issue 12, URL-mode elicitation); the adapter removes it.
   */
  meta?: Record<string, unknown>;
}

export interface OutcomeOptions {
  context?: ResultContext;
  hints?: Record<string, unknown>;
  actions?: ResultAction[];
}

/** A result with data (status `succeeded` unless given). */
export function outcome(type: string, status: ResultStatus, data: Record<string, unknown>, text: string, opts: OutcomeOptions = {}): ToolOutcome {
  return {
    envelope: { status, type, context: opts.context ?? {}, data, error: null, hints: opts.hints ?? {}, actions: opts.actions ?? [] },
    text,
  };
}

/** A failed result from an error; the text says what happened and what to do next. */
export function failure(type: string, err: unknown, opts: OutcomeOptions & { data?: Record<string, unknown> } = {}): ToolOutcome {
  const w = toWireError(err);
  const hints: Record<string, unknown> = { ...(opts.hints ?? {}) };
  if (w.details) hints.details = w.details;
  return {
    envelope: {
      status: 'failed',
      type,
      context: opts.context ?? {},
      data: opts.data ?? null,
      error: { code: w.code, message: w.message, retryable: w.retryable },
      hints,
      actions: opts.actions ?? [],
    },
    text: `${w.code}: ${w.message}`,
  };
}

/**
 * Converts an outcome to the MCP `CallToolResult` fields the adapter returns. With
 * `envelopeInMeta` (a tool without an output schema: `mcp_tool`, issue 13) the envelope goes in
 * `_meta["holdfast/envelope"]` instead of `structuredContent`, which is then only ever the
 * upstream's own (a pass-through outcome keeps the upstream's `content`, `structuredContent` and
 * `isError`).
 */
export function toCallResult(o: ToolOutcome, opts: { envelopeInMeta?: boolean } = {}): ToolCallResult {
  const envelope = o.envelope as unknown as Record<string, unknown>;
  if (o.passThrough) {
    const p = o.passThrough;
    return { content: p.content, ...(p.structuredContent !== undefined ? { structuredContent: p.structuredContent } : {}), isError: p.isError, _meta: { [ENVELOPE_META_KEY]: envelope } };
  }
  const content: ToolCallResult['content'] = [{ type: 'text', text: o.text }, ...(o.extraContent ?? [])];
  const isError = o.envelope.status === 'failed';
  return opts.envelopeInMeta ? { content, isError, _meta: { [ENVELOPE_META_KEY]: envelope } } : { content, structuredContent: envelope, isError };
}

/** A ready-to-call continuation. */
export function action(tool: string, args: Record<string, unknown>, reason: string): ResultAction {
  return { tool, arguments: args, reason };
}

/**
 * An action as the call a model types, for the text block (DESIGN §6.3; many clients give the model
 * only the text block, not `structuredContent.actions`): `read(view="search", query="x", cursor="…")`.
 * Every argument is given, JSON-encoded, in the action's order, except `remote_session_id` (the one
 * the caller passes to every call of the session, as the other text notes leave it out).
 */
export function callText(a: ResultAction): string {
  const args = Object.entries(a.arguments)
    .filter(([k, v]) => k !== 'remote_session_id' && v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${a.tool}(${args.join(', ')})`;
}

/** The last line of a paged text block: `[more: read(view="search", …, cursor="…")]` (see {@link callText}); '' without a next page. */
export function moreLine(next: ResultAction | undefined): string {
  return next ? `\n[more: ${callText(next)}]` : '';
}

/** `body` with the {@link moreLine} of `next` as its last line (no empty line when `body` is empty or ends a line). */
export function withMore(body: string, next: ResultAction | undefined): string {
  const more = moreLine(next);
  return body + (body === '' || body.endsWith('\n') ? more.slice(1) : more);
}

/** Throws a BAD_REQUEST about one argument. */
export function badArgument(message: string): never {
  throw new HoldfastError('BAD_REQUEST', message);
}
