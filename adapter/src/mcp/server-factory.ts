import { buildInfo } from '@holdfast/shared/build';
import { cancelReason } from '@holdfast/shared/errors';
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type jsonSchemaValidator,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { clientRendersApps } from './apps.js';
import { HttpConstants } from './constants.js';
import { elicitationAnswer, resolveElicitation, supportsUrlElicitation } from './elicitation.js';
import { resourceError, type ResourceBackend } from './resources.js';
import type { Principal } from './principals.js';
import { UnknownToolError, type Era, type ToolForwarder } from './tool-call.js';
import type { ToolCatalog } from './tool-catalog.js';

/**
 * The MCP server definition (DESIGN §6.1), shared by every serving path: the modern per-request
 * handler, 2025-era transport sessions, the stateless 2025 fallback and stdio. Each builds a
 * fresh low-level SDK `Server` per serving unit (the SDK binds one instance to one transport);
 * what is expensive — tool JSON Schemas — is rendered once in the {@link ToolCatalog} and shared.
 *
 * Served: `tools/list` (the principal's tools, DESIGN §6.2), `tools/call` (forwarded to the
 * daemon; `notifications/progress` while it runs when the request has a progress token, issue 8), `logging/setLevel` (2025 era), `resources/*` (task logs, through the daemon; an unknown
 * or foreign URI is the SEP-2164 `-32602` error carrying the URI) and `prompts/*` (none).
 *
 * Cancellation of a `tools/call` (issue 9, item 4; docs/execution-tasks.md): the call's signal is
 * aborted with a reason that says why — `notifications/cancelled` from the client is `client`
 * (an explicit cancel: the daemon interrupts a running foreground command), unless its reason says
 * the client's own request timeout fired ({@link isTimeoutCancel}): that is `timeout`, and a
 * running command keeps running for the agent to pick up later; the request's
 * transport or HTTP stream closing (where the HTTP layer treats that as the end of the call) is
 * `gone`; the request timeout keeps its `TimeoutError`. This server handles
 * `notifications/cancelled` itself so that the cancelled call still ends with a final result
 * (`CANCELLED`) at once: without it the SDK drops the answer and a 2025-era POST stream stays
 * open until the request timeout.
 */
export interface ServerDeps {
  catalog: ToolCatalog;
  forwarder: ToolForwarder;
  /** One validator shared by every instance (the SDK would otherwise build one per instance). */
  validator: jsonSchemaValidator;
  /** Task-log resources from the daemon; null serves an empty resource list. */
  resources: ResourceBackend | null;
}

/**
 * Whether the `reason` of a `notifications/cancelled` says the client's own request timeout fired
 * rather than a user asking to stop. The official SDKs send `String(error)` of their timeout error:
 * v1 `McpError: MCP error -32001: Request timed out` (also "Maximum total timeout exceeded"), v2
 * `SdkError: Request timed out` (code `REQUEST_TIMEOUT`); other clients say "timeout"/"timed out".
 */
export function isTimeoutCancel(reason: unknown): boolean {
  if (typeof reason !== 'string') return false;
  return /timed?[ _-]?out|-32001\b|REQUEST_TIMEOUT/i.test(reason);
}

/** Resolves the caller of a request (HTTP: from the authenticated request; stdio: fixed). */
export type PrincipalResolver = (ctx: ServerContext) => Principal;

/** Short usage guide sent as the server's `instructions`. */
export const SERVER_INSTRUCTIONS =
  'holdfast gives you durable shells on registered workspaces of this machine. ' +
  'Call workspace to list workspaces, then session(action="open", workspace=NAME) and pass its remote_session_id to every other tool. ' +
  'After a reconnect, resume with session(action="open", remote_session_id=ID): the shell, cwd and running commands are still there.';

/** Reads the principal that the HTTP layer attached to `authInfo.extra`. */
export function httpPrincipal(ctx: ServerContext): Principal {
  const p = ctx.http?.authInfo?.extra?.principal as Principal | undefined;
  if (p === undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, 'request has no authenticated principal');
  return p;
}

/** Builds one SDK `Server` instance for `era`. */
export function buildServer(deps: ServerDeps, era: Era, principalOf: PrincipalResolver): Server {
  const server = new Server(
    { name: 'holdfast', title: 'holdfast', version: buildInfo().version },
    {
      capabilities: { tools: { listChanged: false }, resources: {}, prompts: {}, logging: {} },
      instructions: SERVER_INSTRUCTIONS,
      jsonSchemaValidator: deps.validator,
    },
  );
  server.setRequestHandler('tools/list', (_req, ctx) => ({ tools: deps.catalog.listFor(principalOf(ctx), clientRendersApps(server, ctx)) as unknown as Tool[] }));
  // In-flight tools/call of this instance by JSON-RPC id, for notifications/cancelled.
  const calls = new Map<string | number, AbortController>();
  server.setNotificationHandler('notifications/cancelled', (n) => {
    const id = n.params.requestId;
    if (id === undefined) return;
    const reason = isTimeoutCancel(n.params.reason) ? cancelReason('timeout', 'the client request timed out') : cancelReason('client', 'cancelled by the client');
    calls.get(id)?.abort(reason);
  });
  server.setRequestHandler('tools/call', async (req, ctx) => {
    const principal = principalOf(ctx);
    const httpReq = ctx.http?.req;
    const ac = new AbortController();
    const id = ctx.mcpReq.id;
    if (id !== undefined) calls.set(id, ac);
    const gone = (reason: unknown): void => {
      if (ac.signal.aborted) return;
      ac.abort(reason instanceof Error && reason.name === 'TimeoutError' ? reason : cancelReason('gone', 'the client connection closed'));
    };
    const sources = [ctx.mcpReq.signal, ...(httpReq?.signal ? [httpReq.signal] : [])];
    for (const s of sources) {
      if (s.aborted) gone(s.reason);
      else s.addEventListener('abort', () => gone(s.reason), { once: true });
    }
    const signal = ac.signal;
    // A client that sent a progressToken gets the call's progress as notifications/progress (issue
    // 13), and a heartbeat while the call is silent (issue 8: tool-call.ts, progress-relay.ts).
    // Notifications still being written are awaited before the answer, so none arrives after it.
    const token = ctx.mcpReq._meta?.progressToken;
    const notifying: Promise<unknown>[] = [];
    const onProgress =
      token === undefined
        ? undefined
        : (p: { progress: number; total?: number; message?: string }) => {
            notifying.push(ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...p } }).catch(() => undefined));
          };
    // URL-mode elicitation (issue 12): what the client can show, and its answer on a re-run.
    const urlElicitation = supportsUrlElicitation(era, server, ctx);
    const answer = elicitationAnswer(ctx);
    try {
      const raw = await deps.forwarder.call(req.params.name, req.params.arguments, {
        principal,
        era,
        requestId: ctx.mcpReq.id === undefined ? null : String(ctx.mcpReq.id),
        mcpSessionId: ctx.sessionId,
        conversationHeader: httpReq?.headers.get(HttpConstants.CONVERSATION_HEADER) ?? undefined,
        signal,
        onProgress,
        apps: clientRendersApps(server, ctx),
        elicitation: { url: urlElicitation, ...(answer !== undefined ? { response: answer } : {}) },
      });
      await Promise.all(notifying);
      const result = resolveElicitation(raw, urlElicitation, answer !== undefined);
      if (!('content' in result)) return result;
      return server.projectCallToolResult(result as CallToolResult, deps.catalog.get(req.params.name)?.listing.outputSchema);
    } catch (err) {
      if (err instanceof UnknownToolError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
      throw err;
    } finally {
      if (id !== undefined && calls.get(id) === ac) calls.delete(id);
    }
  });
  const resources = deps.resources;
  server.setRequestHandler('resources/templates/list', async () => (resources ? await resources.templates() : { resourceTemplates: [] }));
  server.setRequestHandler('resources/list', async (req, ctx) => {
    if (!resources) return { resources: [] };
    const p = principalOf(ctx);
    return resources.list(p.name, deps.catalog.callableBy(p), req.params?.cursor);
  });
  server.setRequestHandler('resources/read', async (req, ctx) => {
    const uri = req.params.uri;
    if (!resources) throw new ResourceNotFoundError(uri, `Resource ${uri} not found`);
    const p = principalOf(ctx);
    try {
      return await resources.read(uri, p.name, deps.catalog.callableBy(p));
    } catch (err) {
      throw resourceError(uri, err);
    }
  });
  server.setRequestHandler('prompts/list', () => ({ prompts: [] }));
  server.setRequestHandler('prompts/get', (req) => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${req.params.name} not found`);
  });
  return server;
}
