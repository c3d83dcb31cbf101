import type { CallContext, ToolCallResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { findTool, parseToolArguments } from '@holdfast/shared/tools';
import { diskFullError } from '../store/disk-space.js';
import type { ProgressUpdate, ToolContext, ToolServices } from './context.js';
import { failure, toCallResult, type ToolOutcome } from './envelope.js';
import { artifactHandler } from './artifact/index.js';
import { environmentHandler, environmentReadHandler } from './environment.js';
import { desktopActionHandler } from './desktop/action.js';
import { desktopConnectHandler } from './desktop/connect.js';
import { desktopDisconnectHandler } from './desktop/disconnect.js';
import { desktopGetSessionHandler } from './desktop/get-session.js';
import { desktopListDevicesHandler } from './desktop/list-devices.js';
import { desktopOpenHandler } from './desktop/open.js';
import { desktopOpenBrowserHandler } from './desktop/open-browser.js';
import { desktopScreenshotHandler } from './desktop/screenshot.js';
import { desktopSelectDisplayHandler } from './desktop/select-display.js';
import { desktopSetControlHandler } from './desktop/set-control.js';
import { editHandler } from './edit/index.js';
import { executeHandler } from './execute.js';
import { mcpToolHandler } from './mcp-tool/index.js';
import { moveOutHandler } from './move-out/index.js';
import { observeHandler } from './observe/index.js';
import { operationBatchHandler } from './operation-batch.js';
import { operationManageHandler } from './operation-manage.js';
import { planHandler } from './plan/index.js';
import { progressHandler } from './progress.js';
import { readHandler } from './read/index.js';
import { runtimeReadHandler } from './runtime-read.js';
import { secretProvideHandler } from './secret-provide.js';
import { screenshotCaptureHandler } from './screenshot-capture.js';
import { sessionHandler } from './session.js';
import { skillToolHandler } from './skill-tool/index.js';
import { workspaceHandler } from './workspace.js';
import { recordCall, takeTracking, type CallTracking } from './work-tracking.js';

type Handler = (args: never, ctx: ToolContext) => Promise<ToolOutcome> | ToolOutcome;

/** Tool name → handler (one file per tool, house style). */
const HANDLERS: Record<string, Handler> = {
  workspace: workspaceHandler,
  session: sessionHandler,
  runtime_read: runtimeReadHandler,
  execute: executeHandler,
  observe: observeHandler,
  read: readHandler,
  edit: editHandler,
  move_out: moveOutHandler,
  skill_tool: skillToolHandler,
  mcp_tool: mcpToolHandler,
  progress: progressHandler,
  plan: planHandler,
  artifact: artifactHandler,
  operation_batch: operationBatchHandler,
  operation_manage: operationManageHandler,
  environment: environmentHandler,
  environment_read: environmentReadHandler,
  secret_provide: secretProvideHandler,
  desktop_list_devices: desktopListDevicesHandler,
  desktop_connect: desktopConnectHandler,
  desktop_open: desktopOpenHandler,
  desktop_open_browser: desktopOpenBrowserHandler,
  desktop_get_session: desktopGetSessionHandler,
  desktop_screenshot: desktopScreenshotHandler,
  desktop_action: desktopActionHandler,
  desktop_set_control: desktopSetControlHandler,
  desktop_select_display: desktopSelectDisplayHandler,
  desktop_disconnect: desktopDisconnectHandler,
  screenshot_capture: screenshotCaptureHandler,
};

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
  const def = findTool(name);
  const handler = HANDLERS[name];
  if (!def || !handler) return toCallResult(failure(type, new HoldfastError('BAD_REQUEST', `unknown tool ${name}`)));
  const envelopeInMeta = def.output === undefined;
  if (!call.allowed_tools.includes(name)) {
    return toCallResult(failure(type, new HoldfastError('TOOL_NOT_ALLOWED', `tool ${name} is not allowed for principal ${call.principal}`)), { envelopeInMeta });
  }
  // The one check of the arguments (the adapter forwards them unparsed, issue 10); the hint marks
  // the failure as an argument error for the adapter's usage log (`invalid`).
  const parsed = parseToolArguments(def, rawArgs);
  if (!parsed.ok) {
    return toCallResult(failure(type, new HoldfastError('BAD_REQUEST', parsed.message), { hints: { input_schema: 'see tools/list' } }), { envelopeInMeta });
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
