import { randomUUID } from 'node:crypto';
import type { PanelModeSetting } from '@holdfast/shared/config';
import type { Affinity, CallContext, ToolCallResult, ToolProgressEvent } from '@holdfast/shared/control';
import { cancelWhy, HoldfastError, type ErrorCode } from '@holdfast/shared/errors';
import { checkEnvelopeShape, checkToolOutput, ENVELOPE_META_KEY, FULL_OUTPUT_CHECK, INPUT_SCHEMA_HINT, parseToolArguments, type Envelope, type ResultAction } from '@holdfast/shared/tools';
import type { RetryPolicy } from '../daemon-client.js';
import type { Principal } from './principals.js';
import type { CatalogEntry, ToolCatalog } from './tool-catalog.js';
import { ForwardConstants } from './constants.js';
import { ADAPTER_RETRY_KEY_PREFIX } from '@holdfast/shared/constants';
import { jsonBytes } from './json-size.js';
import { ProgressRelay } from './progress-relay.js';
import type { UsageLog } from './usage-log.js';

/**
 * Forwarding one `tools/call` to the daemon (DESIGN §1, §6.3): the adapter checks that the tool
 * exists and that the principal may call it, parses the arguments with the tool's schema (a bad
 * argument is an `isError` result, SEP-1303), sends `tool.call` with a {@link CallContext}, and
 * returns the daemon's `content`/`structuredContent`/`isError` unchanged. Daemon failures
 * (unreachable, draining, timed out) become `isError` results with the §6.3 envelope; the daemon
 * client re-sends read-only/idempotent calls itself after a reconnect, and for the others the
 * envelope tells the model to check state and repeat the call.
 */

/** Where a tool call is executed: the daemon (production) or a stand-in in unit tests. */
export interface ToolBackend {
  /**
   * Runs a tool call.
   * @throws HoldfastError when the call could not be completed (daemon unreachable, draining, timeout, cancelled).
   */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    context: CallContext,
    opts: { retry: RetryPolicy; deadlineMs: number; signal: AbortSignal; onProgress?: ProgressSink },
  ): Promise<ToolCallResult>;
}

/** Receives progress of one call (the MCP `notifications/progress` fields, issue 13). */
export type ProgressSink = (p: Omit<ToolProgressEvent, 'progress_id'>) => void;

/** The protocol era a call arrived in (`CallContext.transport`). */
export type Era = 'legacy' | 'modern' | 'stdio';

/** Who called and through what, for one call. */
export interface CallOrigin {
  principal: Principal;
  era: Era;
  /** JSON-RPC id of the `tools/call` request. */
  requestId: string | null;
  /** `Mcp-Session-Id` of a 2025-era transport session. */
  mcpSessionId?: string | undefined;
  /** `X-Holdfast-Conversation-Id` header. */
  conversationHeader?: string | undefined;
  /** Aborted when the client cancels, disconnects or the request times out. */
  signal: AbortSignal;
  /** Set when the client asked for progress (its request had a `progressToken`). */
  onProgress?: ProgressSink | undefined;
  /** The client renders MCP Apps views (issue 16: it declared the UI extension). */
  apps?: boolean;
  /** URL-mode elicitation: whether the client supports it, and its answer on a re-run (issue 12). */
  elicitation?: CallContext['elicitation'];
}

/**
 * A `tools/call` result as it goes to the client. `structuredContent` is the §6.3 envelope, except
 * for a pass-through tool (`mcp_tool`, issue 13), whose envelope is in `_meta`; `_meta` also carries
 * the activity snapshot (issue 11).
 */
export interface ToolResult {
  content: ToolCallResult['content'];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
  _meta?: Record<string, unknown>;
}

/** Thrown for a tool name that is not served: answered as a JSON-RPC `-32602` protocol error. */
export class UnknownToolError extends Error {
  constructor(readonly tool: string) {
    super(`Tool ${tool} not found`);
    this.name = 'UnknownToolError';
  }
}

/** Builds a `failed` §6.3 envelope result. */
export function failedResult(code: ErrorCode | string, message: string, retryable: boolean, actions: ResultAction[] = [], hints: Record<string, unknown> = {}): ToolResult {
  const envelope: Envelope = {
    status: 'failed',
    type: 'error',
    context: {},
    data: null,
    error: { code, message, retryable },
    hints,
    actions,
  };
  return { content: [{ type: 'text', text: `failed (${code}): ${message}` }], structuredContent: envelope as unknown as Record<string, unknown>, isError: true };
}

/**
 * For a tool without an output schema (`mcp_tool`, issue 13) the envelope of a result the adapter
 * or the daemon made itself travels in `_meta["holdfast/envelope"]`, never in `structuredContent`
 * (which is only ever the upstream's).
 */
function envelopeInMeta(entry: CatalogEntry, r: ToolResult): ToolResult {
  if (entry.def.output !== undefined || r._meta !== undefined || r.structuredContent === undefined) return r;
  return { content: r.content, isError: r.isError, _meta: { [ENVELOPE_META_KEY]: r.structuredContent } };
}

/**
 * Whether a result is the daemon's refusal of the call's arguments (it parses them with the tool's
 * schema and marks that failure with `hints.input_schema`): the usage log says `invalid`.
 */
function isArgumentError(r: ToolResult): boolean {
  const env = (r._meta?.[ENVELOPE_META_KEY] ?? r.structuredContent) as { error?: { code?: unknown } | null; hints?: Record<string, unknown> } | undefined;
  return env?.error?.code === 'BAD_REQUEST' && env.hints?.input_schema === INPUT_SCHEMA_HINT;
}

/** Options of {@link ToolForwarder}. */
export interface ForwarderOptions {
  /** Default affinity of this adapter (`--session-affinity`). */
  affinity: Affinity;
  /** Deadline of one daemon call, ms. */
  deadlineMs: number;
  /** How long a request may take before the client gets 408 (for the message of a cancelled call), ms. */
  requestTimeoutMs: number;
  /** How desktop views reach the person (issue 16: `--panel`, and whether `serve` runs in a terminal). */
  panel?: { mode: PanelModeSetting; terminal: boolean };
}

/**
 * An `execute run` without an `idempotency_key` gets one minted here (`adapter-<uuid>`,
 * {@link ADAPTER_RETRY_KEY_PREFIX}), one per
 * `tools/call`: the daemon deduplicates keyed runs, so when the daemon goes away mid-call (e.g.
 * `holdfast restart-daemon`) the adapter can re-send the call and get the task the first attempt
 * started instead of a "may or may not have run" error — and never runs it twice (DESIGN §4.5).
 */
export function withRetryKey(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  if (tool !== 'execute' || (args.action ?? 'run') !== 'run' || typeof args.idempotency_key === 'string') return args;
  return { ...args, idempotency_key: `${ADAPTER_RETRY_KEY_PREFIX}${randomUUID()}` };
}

/** One conversation id per stdio connection: a stdio adapter process serves exactly one client. */
const STDIO_CONVERSATION_ID = `stdio-${randomUUID()}`;

/**
 * The conversation a call belongs to (`CallContext.conversation_id`, issue 8): the
 * `X-Holdfast-Conversation-Id` header, else the 2025-era transport session (`Mcp-Session-Id`),
 * else the stdio connection; undefined when the client names none.
 */
export function conversationOf(origin: Pick<CallOrigin, 'era' | 'mcpSessionId' | 'conversationHeader'>): string | undefined {
  const header = origin.conversationHeader?.trim();
  if (header) return header.slice(0, 200);
  if (origin.mcpSessionId !== undefined) return origin.mcpSessionId;
  return origin.era === 'stdio' ? STDIO_CONVERSATION_ID : undefined;
}

/** Validates, forwards and accounts tool calls. */
export class ToolForwarder {
  private running = 0;

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly backend: ToolBackend,
    private readonly usage: UsageLog | null,
    private readonly opts: ForwarderOptions,
  ) {}

  /**
   * Runs `tools/call name(args)` for `origin`.
   * @throws UnknownToolError when no served tool has that name (a protocol error, not a result).
   */
  async call(name: string, rawArgs: unknown, origin: CallOrigin): Promise<ToolResult> {
    const entry = this.catalog.get(name);
    if (entry === undefined) throw new UnknownToolError(name);
    this.running++;
    try {
      return await this.run(name, entry, rawArgs, origin);
    } finally {
      this.running--;
    }
  }

  /** Tool calls in progress. */
  get inFlight(): number {
    return this.running;
  }

  private async run(name: string, entry: CatalogEntry, rawArgs: unknown, origin: CallOrigin): Promise<ToolResult> {
    const started = performance.now();
    let result: ToolResult;
    if (!origin.principal.allowed.has(name)) {
      // Name only tools this adapter serves (reserved names in a profile are not callable).
      const callable = this.catalog.callableBy(origin.principal);
      result = envelopeInMeta(entry, failedResult('TOOL_NOT_ALLOWED', `tool ${name} is not allowed for principal "${origin.principal.name}"; allowed: ${callable.join(', ') || '(none)'}`, false));
      this.account(name, origin, started, result, 'refused');
      return result;
    }
    // The arguments are checked once, by the daemon (its trust boundary, issue 10: the adapter
    // parsed them too, a third of a small call's zod time); only a value that is not an object
    // at all, which cannot travel as `tool.call` arguments, is refused here.
    const given = rawArgs ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) {
      const parsed = parseToolArguments(entry.def, given);
      result = envelopeInMeta(entry, failedResult('BAD_REQUEST', parsed.ok ? `invalid arguments for ${name}: expected an object` : parsed.message, false, [], { input_schema: INPUT_SCHEMA_HINT }));
      this.account(name, origin, started, result, 'invalid');
      return result;
    }
    const context: CallContext = {
      principal: origin.principal.name,
      allowed_tools: this.catalog.callableBy(origin.principal),
      affinity: this.opts.affinity,
      transport: origin.era,
    };
    if (origin.requestId !== null) context.request_id = origin.requestId;
    if (origin.mcpSessionId !== undefined) context.mcp_session_id = origin.mcpSessionId;
    if (origin.conversationHeader !== undefined) context.conversation_header = origin.conversationHeader;
    const conversation = conversationOf(origin);
    if (conversation !== undefined) context.conversation_id = conversation;
    // Without progress notifications a client's 60 s timeout cannot be reset: cap every wait.
    if (origin.onProgress === undefined) context.wait_cap_ms = ForwardConstants.NO_PROGRESS_WAIT_CAP_MS;
    if (origin.principal.sandbox !== undefined) context.sandbox = origin.principal.sandbox;
    if (this.opts.panel) context.panel = { mode: this.opts.panel.mode, apps: origin.apps === true, terminal: this.opts.panel.terminal };
    if (origin.elicitation !== undefined) context.elicitation = origin.elicitation;
    const args = withRetryKey(name, given as Record<string, unknown>);
    const retry = entry.retryFor(args);
    // One monotonic progress stream per call: the daemon's own events (issue 13) and, while it is
    // silent, a heartbeat that keeps resetting the client's timeout (issue 8).
    const relay = origin.onProgress ? new ProgressRelay(origin.onProgress, name, args) : null;
    try {
      const r = await this.backend.callTool(name, args, context, { retry, deadlineMs: this.opts.deadlineMs, signal: origin.signal, ...(relay ? { onProgress: relay.forward } : {}) });
      // The full output schema under the tests (HOLDFAST_CHECK_OUTPUT=1), the envelope's shape in service.
      const problem = FULL_OUTPUT_CHECK ? checkToolOutput(entry.def, r.structuredContent) : checkEnvelopeShape(entry.def, r.structuredContent);
      result =
        problem === null
          ? { content: r.content, ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}), isError: r.isError, ...(r._meta !== undefined ? { _meta: r._meta } : {}) }
          : failedResult('INTERNAL', `holdfastd returned a ${name} result that does not match its output schema (${problem}); this is a bug, please report it`, false);
    } catch (err) {
      result = this.errorResult(name, rawArgs, retry, err, origin.signal);
    } finally {
      relay?.stop();
    }
    result = envelopeInMeta(entry, result);
    this.account(name, origin, started, result, isArgumentError(result) ? 'invalid' : null);
    return result;
  }

  private errorResult(name: string, rawArgs: unknown, retry: RetryPolicy, err: unknown, signal: AbortSignal): ToolResult {
    const e = err instanceof HoldfastError ? err : new HoldfastError('INTERNAL', err instanceof Error ? err.message : String(err));
    if (e.code === 'CANCELLED' && signal.aborted) {
      const reason = signal.reason instanceof Error && signal.reason.name === 'TimeoutError' ? 'timeout' : 'cancelled';
      if (reason === 'timeout') {
        return failedResult('TIMEOUT', `${name} took longer than the request timeout (${this.opts.requestTimeoutMs} ms) and was abandoned by the adapter; it may still have run — check state (for execute: action=status) before repeating`, true);
      }
      const why = cancelWhy(signal.reason);
      if (why === 'timeout' || why === 'gone') {
        return failedResult(
          'CANCELLED',
          name === 'execute'
            ? `the client stopped waiting for execute (${why === 'timeout' ? 'its request timed out' : 'its connection closed'}): a command that had not started does not run, a running command keeps running — find it with observe(view="session") and wait for it with execute(action="attach")`
            : `the client stopped waiting for ${name}`,
          false,
        );
      }
      return failedResult(
        'CANCELLED',
        name === 'execute'
          ? 'execute was cancelled by the client: a command that had not started does not run, a running foreground command is interrupted (Ctrl-C); execute(action="status") shows how it ended'
          : `${name} was cancelled by the client`,
        false,
      );
    }
    const actions: ResultAction[] = [];
    if (e.retryable) {
      const args = rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? (rawArgs as Record<string, unknown>) : {};
      actions.push({
        tool: name,
        arguments: args,
        reason: retry === 'idempotent' ? 'holdfast was briefly unavailable; repeat the call' : 'holdfast was unavailable mid-call; check whether it took effect, then repeat it',
      });
    }
    return failedResult(e.code, e.message, e.retryable, actions);
  }

  private account(tool: string, origin: CallOrigin, started: number, result: ToolResult, adapterStatus: string | null): void {
    const usage = this.usage;
    if (usage === null) return;
    const duration = Math.round((performance.now() - started) * 1000) / 1000;
    // Off the response path: sizes are measured after the answer is on its way.
    setImmediate(() => {
      const sc = (result._meta?.[ENVELOPE_META_KEY] ?? result.structuredContent ?? {}) as { status?: unknown; error?: { code?: unknown } | null };
      usage.write({
        ts: new Date().toISOString(),
        tool,
        principal: origin.principal.name,
        era: origin.era,
        request_id: origin.requestId,
        status: adapterStatus ?? (typeof sc.status === 'string' ? sc.status : result.isError ? 'failed' : 'succeeded'),
        error_code: sc.error && typeof sc.error.code === 'string' ? sc.error.code : null,
        duration_ms: duration,
        // Measured, not serialised: a 1 MB read's result was stringified again here (issue 10).
        bytes: jsonBytes(result.content) + jsonBytes(result.structuredContent ?? null),
      });
    });
  }
}
