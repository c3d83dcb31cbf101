import { HoldfastError } from '@holdfast/shared/errors';
import type { ToolCallResult } from '@holdfast/shared/control';
import type { ResultAction, ResultContext } from '@holdfast/shared/tools';
import { argumentsDigest, argumentsPhrase, confirmationOutcome, confirmOrAsk } from '../../extensions/confirmation.js';
import { requireServer, runsWithoutConfirmation, toolRevision } from '../../extensions/mcp/servers.js';
import { displaySafe } from '../../policy/text-safety.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import type { ToolContext } from '../context.js';
import { action, failure, type ToolOutcome } from '../envelope.js';
import { findUpstreamTool, requireTarget, type McpToolArgs } from './target.js';
import { serverScope, upstreamLink } from './upstream-link.js';

/** The upstream call ends this long before the adapter's request timeout, ms. */
const REQUEST_MARGIN_MS = 5000;

/**
 * `mcp_tool(action="call")` (issue 13): in the session's live upstream connection — `tools/list`,
 * then the tool's current schema revision is compared with the one this session's `describe` saw
 * (`SCHEMA_REVISION_CHANGED` with a describe action when it changed), the arguments are validated
 * against the current input schema (`BAD_REQUEST`), the confirmation is checked (tools not
 * annotated `readOnlyHint: true` + `openWorldHint: false` need `user_confirmed: true` on an exact
 * repeat), the audit line is written (if it cannot be, nothing runs), then `tools/call`.
 *
 * The upstream result's `content`, `structuredContent` and `isError` come back unchanged; the
 * envelope (server, tool, revision, upstream pid) is in `_meta`. Upstream progress is forwarded
 * when the client asked for it; the client's cancellation cancels the upstream request. No
 * recovery action repeats the arguments (they may hold secrets).
 */
export async function callUpstreamTool(args: McpToolArgs, session: SessionRow, ctx: ToolContext): Promise<ToolOutcome> {
  const { server, tool } = requireTarget(args);
  const rs = session.id;
  const x = ctx.services.extensions;
  const callArgs = args.arguments ?? {};
  const purpose = args.purpose ?? null;
  const context: ResultContext = { remote_session_id: rs, ...(purpose ? { purpose } : {}) };
  const describeAction = action('mcp_tool', { action: 'describe', remote_session_id: rs, server, tool }, 'read the tool’s current input schema and revision, then call again');
  const spec = requireServer(serverScope(session, ctx), server);
  const link = await upstreamLink(session, ctx);
  const target = `${server}/${tool}`;

  const { tools } = await link.mcpListTools(spec, ctx.signal);
  const def = findUpstreamTool(tools, server, tool);
  const revision = toolRevision(def);
  const described = x.describes.get(rs, 'mcp', target);
  if (described !== undefined && described !== revision) {
    return failure('mcp.call', new HoldfastError('SCHEMA_REVISION_CHANGED', `the tool ${target} changed since you described it (revision ${described} → ${revision}); nothing was called. Describe it again and check the arguments`, { retryable: false }), {
      context,
      data: { server, tool, described_revision: described, revision },
      actions: [describeAction],
    });
  }
  const schema = (def.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object' };
  let problem: string | null;
  try {
    problem = x.validator.check(schema, callArgs);
  } catch (err) {
    throw new HoldfastError('UPSTREAM_ERROR', `the input schema of ${target} does not compile (${(err as Error).message}); the upstream server publishes a broken schema`, { retryable: false });
  }
  if (problem !== null) {
    return failure('mcp.call', new HoldfastError('BAD_REQUEST', `arguments do not match the input schema of ${target} (revision ${revision}): ${problem}; nothing was called`, { retryable: false }), {
      context,
      data: { server, tool, revision },
      actions: [describeAction],
    });
  }

  const argsSha = argumentsDigest(callArgs);
  const audit = {
    principal: ctx.call.principal,
    remote_session_id: rs,
    server,
    tool,
    revision,
    arguments_sha256: argsSha,
    argument_names: Object.keys(callArgs),
    ...(purpose ? { purpose } : {}),
    ...(ctx.call.request_id ? { request_id: ctx.call.request_id } : {}),
  };
  let confirmationId: string | null = null;
  if (!runsWithoutConfirmation(def)) {
    const summary = `Call ${displaySafe(tool)} of the upstream MCP server ${displaySafe(server)} (${annotationReason(def)})${argumentsPhrase(callArgs)}${purpose ? ` — purpose: ${displaySafe(purpose)}` : ''}`;
    const verdict = confirmOrAsk(
      x.confirmations,
      ctx.services.execution.audit,
      { kind: 'mcp', target, revision, args: callArgs, purpose, sessionId: rs, principal: ctx.call.principal, summary, userConfirmed: args.user_confirmed === true, ttlS: ctx.services.config.config.security.commands.confirm_ttl_s },
      audit,
      'mcp.confirmation_requested',
    );
    if (!verdict.run) {
      return confirmationOutcome('mcp.confirmation', 'mcp_tool', { action: 'call', remote_session_id: rs, server, tool, ...(purpose ? { purpose } : {}) }, verdict, { server, tool, revision }, context);
    }
    confirmationId = verdict.confirmationId;
  }

  // The audit line comes first: if it cannot be written, nothing is called.
  ctx.services.execution.audit.append({ ...audit, event: 'mcp.call', decision: confirmationId ? 'confirm' : 'allow', ...(confirmationId ? { confirmed: true, confirmation_id: confirmationId } : {}) });
  const ceiling = Math.max(1000, ctx.services.config.config.limits.request_timeout_ms - REQUEST_MARGIN_MS);
  let answer;
  try {
    answer = await link.mcpCallTool({ server: spec, tool, arguments: callArgs, timeoutMs: ceiling }, { signal: ctx.signal, ...(ctx.progress ? { onProgress: ctx.progress } : {}) });
  } catch (err) {
    const code = err instanceof HoldfastError ? err.code : null;
    const actions: ResultAction[] = code === 'UPSTREAM_EXITED' || code === 'UPSTREAM_UNAVAILABLE' ? [describeAction] : [];
    return failure('mcp.call', err, { context, data: { server, tool, revision }, actions });
  }
  const r = answer.result;
  const isError = r.isError === true;
  const envelopeData = { server, tool, revision, upstream_pid: answer.upstream.pid, ...(answer.upstream.protocolVersion ? { protocol_version: answer.upstream.protocolVersion } : {}) };
  const base = isError
    ? failure('mcp.call', new HoldfastError('UPSTREAM_ERROR', `the upstream tool ${target} reported an error (isError); its content says what went wrong`, { retryable: false }), { context, data: envelopeData })
    : { envelope: { status: 'succeeded' as const, type: 'mcp.call', context, data: envelopeData, error: null, hints: {}, actions: [] }, text: '' };
  return {
    ...base,
    passThrough: {
      content: (Array.isArray(r.content) ? r.content : []) as ToolCallResult['content'],
      ...(r.structuredContent && typeof r.structuredContent === 'object' ? { structuredContent: r.structuredContent as Record<string, unknown> } : {}),
      isError,
    },
  };
}

/** Why a tool needs confirmation, from its annotations. */
function annotationReason(def: Record<string, unknown>): string {
  const a = def.annotations as Record<string, unknown> | undefined;
  if (!a) return 'no annotations: it may change things';
  if (a.destructiveHint === true) return 'annotated destructive';
  if (a.readOnlyHint !== true) return 'not annotated read-only';
  return 'annotated open-world: it reaches outside this machine';
}
