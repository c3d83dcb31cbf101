import type { CallContext, ToolCallResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { findTool } from '@holdfast/shared/tools';
import { diskFullError } from '../store/disk-space.js';
import type { ToolContext, ToolServices } from './context.js';
import { failure, toCallResult, type ToolOutcome } from './envelope.js';
import { editHandler } from './edit/index.js';
import { executeHandler } from './execute.js';
import { moveOutHandler } from './move-out/index.js';
import { observeHandler } from './observe/index.js';
import { readHandler } from './read/index.js';
import { runtimeReadHandler } from './runtime-read.js';
import { sessionHandler } from './session.js';
import { workspaceHandler } from './workspace.js';

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
};

/**
 * Runs one MCP tool call in the daemon (DESIGN §6): the principal must be allowed the tool
 * (the same policy that shaped its `tools/list`), the arguments must parse with the tool's zod
 * schema, and every outcome — errors included — comes back as the DESIGN §6.3 envelope with
 * `isError` set for failures (input errors are tool results, not protocol errors).
 */
export async function callTool(name: string, rawArgs: Record<string, unknown>, call: CallContext, services: ToolServices, signal: AbortSignal): Promise<ToolCallResult> {
  const type = name;
  const def = findTool(name);
  const handler = HANDLERS[name];
  if (!def || !handler) return toCallResult(failure(type, new HoldfastError('BAD_REQUEST', `unknown tool ${name}`)));
  if (!call.allowed_tools.includes(name)) {
    return toCallResult(failure(type, new HoldfastError('TOOL_NOT_ALLOWED', `tool ${name} is not allowed for principal ${call.principal}`)));
  }
  const parsed = def.input.safeParse(rawArgs);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return toCallResult(failure(type, new HoldfastError('BAD_REQUEST', `${issue.path.join('.') || 'arguments'}: ${issue.message}`)));
  }
  const started = Date.now();
  let result: ToolOutcome;
  try {
    result = await handler(parsed.data as never, { call, services, signal });
  } catch (err) {
    const ctx = typeof rawArgs.remote_session_id === 'string' ? { remote_session_id: rawArgs.remote_session_id } : {};
    // A full disk is a retryable DISK_FULL that says what still works, never an INTERNAL (issue 18).
    const shown = services.disk.noteError(err) ? diskFullError(`${name}`, services.disk.freeBytes()) : err;
    result = failure(type, shown, { context: ctx });
  }
  // Any tool use of a session counts as its activity (issue 18); the open that created it does not.
  const used = result.envelope.context.remote_session_id;
  if (used && !(name === 'session' && result.envelope.hints.created === true)) services.sessions.noteToolUse(used, call.principal);
  services.events.appendSoon({
    session_id: result.envelope.context.remote_session_id ?? null,
    kind: 'tool.call',
    tool: name,
    status: result.envelope.status,
    data: {
      duration_ms: Date.now() - started,
      principal: call.principal,
      ...(result.envelope.context.execution_task_id ? { execution_task_id: result.envelope.context.execution_task_id } : {}),
      ...(result.envelope.error ? { error: result.envelope.error.code } : {}),
    },
  });
  return toCallResult(result);
}
