import type { CallContext, ToolCallResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { INPUT_SCHEMA_HINT } from '@holdfast/shared/tool-constants';
import { diskFullError } from '../store/disk-space.js';
import type { ProgressUpdate, ToolContext, ToolServices } from './context.js';
import { failure, toCallResult, type ToolOutcome } from './envelope.js';
import type { CallTracking } from './work-tracking.js';

type Handler = (args: never, ctx: ToolContext) => Promise<ToolOutcome> | ToolOutcome;

/**
 * Tool name → a loader of its handler (one file per tool, house style). Handlers are imported on
 * a tool's first call, not at daemon start: an idle daemon does not hold the modules of tools
 * nobody called (issue 10, idle RSS; docs/performance.md "Memory").
 */
const HANDLERS: Record<string, () => Promise<Handler>> = {
  workspace: async () => (await import('./workspace.js')).workspaceHandler,
  session: async () => (await import('./session.js')).sessionHandler,
  runtime_read: async () => (await import('./runtime-read.js')).runtimeReadHandler,
  execute: async () => (await import('./execute.js')).executeHandler,
  observe: async () => (await import('./observe/index.js')).observeHandler,
  read: async () => (await import('./read/index.js')).readHandler,
  edit: async () => (await import('./edit/index.js')).editHandler,
  move_out: async () => (await import('./move-out/index.js')).moveOutHandler,
  skill_tool: async () => (await import('./skill-tool/index.js')).skillToolHandler,
  mcp_tool: async () => (await import('./mcp-tool/index.js')).mcpToolHandler,
  progress: async () => (await import('./progress.js')).progressHandler,
  plan: async () => (await import('./plan/index.js')).planHandler,
  artifact: async () => (await import('./artifact/index.js')).artifactHandler,
  operation_batch: async () => (await import('./operation-batch.js')).operationBatchHandler,
  operation_manage: async () => (await import('./operation-manage.js')).operationManageHandler,
  environment: async () => (await import('./environment.js')).environmentHandler,
  environment_read: async () => (await import('./environment.js')).environmentReadHandler,
  secret_provide: async () => (await import('./secret-provide.js')).secretProvideHandler,
  desktop_list_devices: async () => (await import('./desktop/list-devices.js')).desktopListDevicesHandler,
  desktop_connect: async () => (await import('./desktop/connect.js')).desktopConnectHandler,
  desktop_open: async () => (await import('./desktop/open.js')).desktopOpenHandler,
  desktop_open_browser: async () => (await import('./desktop/open-browser.js')).desktopOpenBrowserHandler,
  desktop_get_session: async () => (await import('./desktop/get-session.js')).desktopGetSessionHandler,
  desktop_screenshot: async () => (await import('./desktop/screenshot.js')).desktopScreenshotHandler,
  desktop_action: async () => (await import('./desktop/action.js')).desktopActionHandler,
  desktop_set_control: async () => (await import('./desktop/set-control.js')).desktopSetControlHandler,
  desktop_select_display: async () => (await import('./desktop/select-display.js')).desktopSelectDisplayHandler,
  desktop_disconnect: async () => (await import('./desktop/disconnect.js')).desktopDisconnectHandler,
  screenshot_capture: async () => (await import('./screenshot-capture.js')).screenshotCaptureHandler,
};

const loadedHandlers = new Map<string, Handler>();

/** The catalogue's zod schemas and the work-tracking checks, imported on the first call (same reason). */
type CallKit = { tools: typeof import('@holdfast/shared/tools'); tracking: typeof import('./work-tracking.js') };
let kit: CallKit | undefined;

async function callKit(): Promise<CallKit> {
  if (!kit) {
    const [tools, tracking] = await Promise.all([import('@holdfast/shared/tools'), import('./work-tracking.js')]);
    kit = { tools, tracking };
  }
  return kit;
}

/** The handler of `name`, imported on first use; undefined for an unknown tool. */
async function handlerOf(name: string): Promise<Handler | undefined> {
  const known = loadedHandlers.get(name);
  if (known) return known;
  if (!Object.hasOwn(HANDLERS, name)) return undefined; // not `constructor`, `__proto__`…
  const load = HANDLERS[name]!;
  const h = await load();
  loadedHandlers.set(name, h);
  return h;
}

/**
 * Runs one MCP tool call in the daemon (DESIGN §6): the principal must be allowed the tool
 * (the same policy that shaped its `tools/list`), the arguments must parse with the tool's zod
 * schema, and every outcome — errors included — comes back as the DESIGN §6.3 envelope with
 * `isError` set for failures (input errors are tool results, not protocol errors). A tool without
 * an output schema (`mcp_tool`) also carries the envelope in `_meta`. `progress` forwards a
 * handler's progress updates to the caller when its context has a `progress_id`. The
 * work-tracking arguments every session tool takes (`activity`, `plan_id`, `plan_task_id`; issue
 * 11) are checked and taken off here, once, before the handler runs; the call's event (with its
 * activity snapshot, returned in `_meta`) is recorded after it; `eventData` is added to that
 * event (an operation step's ids, issue 12).
 */
export async function callTool(
  name: string,
  rawArgs: Record<string, unknown>,
  call: CallContext,
  services: ToolServices,
  signal: AbortSignal,
  progress?: (p: ProgressUpdate) => void,
  eventData?: Record<string, unknown>,
): Promise<ToolCallResult> {
  const type = name;
  const { tools: { findTool, parseToolArguments }, tracking: { recordCall, takeTracking } } = kit ?? (await callKit());
  const def = findTool(name);
  const handler = await handlerOf(name);
  if (!def || !handler) return toCallResult(failure(type, new HoldfastError('BAD_REQUEST', `unknown tool ${name}`)));
  const envelopeInMeta = def.output === undefined;
  if (!call.allowed_tools.includes(name)) {
    return toCallResult(failure(type, new HoldfastError('TOOL_NOT_ALLOWED', `tool ${name} is not allowed for principal ${call.principal}`)), { envelopeInMeta });
  }
  // The one check of the arguments (the adapter forwards them unparsed, issue 10); the hint marks
  // the failure as an argument error for the adapter's usage log (`invalid`).
  const parsed = parseToolArguments(def, rawArgs);
  if (!parsed.ok) {
    return toCallResult(failure(type, new HoldfastError('BAD_REQUEST', parsed.message), { hints: { input_schema: INPUT_SCHEMA_HINT } }), { envelopeInMeta });
  }
  const started = Date.now();
  let args = parsed.value;
  let tracking: CallTracking = { activity: null, plan: null };
  let result: ToolOutcome;
  try {
    ({ args, tracking } = takeTracking(def, args, call, services));
    result = await handler(args as never, { call, services, signal, ...(progress ? { progress } : {}) });
  } catch (err) {
    const ctx = typeof rawArgs.remote_session_id === 'string' ? { remote_session_id: rawArgs.remote_session_id } : {};
    // A full disk is a retryable DISK_FULL that says what still works, never an INTERNAL (issue 18).
    const shown = services.disk.noteError(err) ? diskFullError(`${name}`, services.disk.freeBytes()) : err;
    result = failure(type, shown, { context: ctx });
  }
  // Any tool use of a session counts as its activity (issue 18); the open that created it does not.
  const used = result.envelope.context.remote_session_id;
  if (used && !(name === 'session' && result.envelope.hints.created === true)) services.sessions.noteToolUse(used, call.principal);
  let meta: ReturnType<typeof recordCall>;
  try {
    meta = recordCall(name, args, tracking, result, call, services, Date.now() - started, eventData);
  } catch (err) {
    // The call happened: on a full disk its history row is lost, not its result (issue 18).
    if (!services.disk.noteError(err)) throw err;
  }
  const out = toCallResult(result, { envelopeInMeta });
  if (meta || result.meta) out._meta = { ...(out._meta ?? {}), ...(result.meta ?? {}), ...(meta ?? {}) };
  return out;
}
