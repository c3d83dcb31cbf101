import type { SessionView } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import type { sessionTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from './context.js';
import { action, failure, outcome, type ToolOutcome } from './envelope.js';

type Args = z.output<typeof sessionTool.input>;

const GUIDE =
  'Pass remote_session_id verbatim to every tool. The shell keeps cwd and env between commands. ' +
  'execute(command) returns output and exit_code, or an execution_task_id to attach to when it runs longer than yield_time_ms. ' +
  'If the connection drops, call session(action="open", remote_session_id=…) to resume: nothing is lost.';

/**
 * `session` (DESIGN §4.2, issue 3): open (attach-or-create), resume by id, close, reset_shell.
 * The conversation id for `conversation` affinity is, in order: the transport session
 * (`Mcp-Session-Id`), the `X-Holdfast-Conversation-Id` header, the `conversation_id` argument.
 * Resuming a session that has ended is a `SESSION_EXITED` failure (type `session.exited`) whose
 * action opens a new session on the same workspace.
 */
export async function sessionHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const { sessions } = ctx.services;
  const principal = ctx.call.principal;
  if (args.action === 'close' || args.action === 'reset_shell') {
    if (!args.remote_session_id) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs remote_session_id`);
    const row = sessions.requireOwned(args.remote_session_id, principal);
    if (args.action === 'close') {
      await sessions.end(row.id, 'closed');
      const view = await sessions.view(row.id);
      return outcome('session.closed', 'succeeded', sessionData(view, ctx), `Session ${row.id} closed: its shell and processes were stopped.`, {
        context: { remote_session_id: row.id },
        actions: [action('session', { action: 'open', workspace: row.workspace }, 'open a new session on the same workspace')],
      });
    }
    const link = await sessions.ensureLink(row.id);
    await link.resetShell();
    ctx.services.events.append({ session_id: row.id, workspace: row.workspace, kind: 'session.reset_shell' });
    const view = await sessions.view(row.id);
    return outcome('session.reset_shell', 'succeeded', sessionData(view, ctx), `Shell of ${row.id} restarted (new shell pid ${view.shell_pid}); background tasks kept running.`, {
      context: { remote_session_id: row.id },
    });
  }
  const affinity = ctx.call.affinity ?? ctx.services.config.config.sessions.affinity;
  const conversation = ctx.call.mcp_session_id ?? ctx.call.conversation_header ?? args.conversation_id;
  const { session, created } = await sessions.open({
    principal,
    workspace: args.workspace,
    remote_session_id: args.remote_session_id,
    affinity,
    conversation_id: conversation,
    signal: ctx.signal,
  });
  const live = session.state === 'running' || session.state === 'starting';
  if (!live) {
    // Resuming a session that ended: a failure with what happened and how to go on, no usage guide.
    const message = `session ${session.remote_session_id} has ${session.state}${session.end_reason ? ` (${session.end_reason})` : ''}: its shell and processes are gone; open a new session`;
    return failure('session.exited', new HoldfastError('SESSION_EXITED', message, { retryable: false }), {
      context: { remote_session_id: session.remote_session_id },
      data: { remote_session_id: session.remote_session_id, workspace: session.workspace, workspace_root: session.workspace_root, state: session.state, end_reason: session.end_reason },
      actions: [action('session', { action: 'open', workspace: session.workspace }, 'open a new session on the same workspace')],
    });
  }
  const verb = args.remote_session_id ? 'Resumed' : created ? 'Opened new' : 'Attached to live';
  const text = `${verb} session ${session.remote_session_id} on ${session.workspace} (${session.workspace_root}), shell pid ${session.shell_pid}.`;
  return outcome(created ? 'session.created' : 'session.attached', 'succeeded', sessionData(session, ctx), text, {
    context: { remote_session_id: session.remote_session_id },
    hints: { created },
    actions: [action('execute', { remote_session_id: session.remote_session_id, command: 'pwd' }, 'run a command in the session')],
  });
}

function sessionData(s: SessionView, ctx: ToolContext): Record<string, unknown> {
  const cfg = ctx.services.config.config;
  return {
    remote_session_id: s.remote_session_id,
    workspace: s.workspace,
    workspace_root: s.workspace_root,
    shell_pid: s.shell_pid,
    affinity: s.affinity,
    state: s.state,
    tools: ctx.call.allowed_tools,
    limits: {
      yield_time_ms_default: 10_000,
      yield_time_ms_max: 120_000,
      output_max_bytes: 65_536,
      idle_ttl_seconds: s.ttl_seconds,
      read_window_bytes: cfg.limits.read_window_bytes,
    },
    guide: GUIDE,
  };
}
