import { commandScreen } from '../../execution/command-screen.js';
import { taskSummary } from '../../execution/task-lookup.js';
import type { ToolContext } from '../context.js';
import { commandHead, sandboxPhrase } from '../session.js';
import { action, callText, outcome, type ToolOutcome } from '../envelope.js';
import type { ObserveArgs } from './index.js';
import { requireSessionAccess } from '../../sessions/access.js';

/** Tasks listed in the session view, newest first. */
const TASKS_LISTED = 20;

/**
 * `observe(view="session")` (issue 5): the session's state, sandbox (issue 17), shell pid, current directory, busy
 * flag, activity clock (created, last PTY output, last instruction, ever executed), the command in
 * the terminal (with `awaiting_input` as the guardian's own watch sees it, and then the prompt's
 * screen tail, docs/execution-tasks.md), and its recent execution tasks.
 */
export async function sessionView(args: ObserveArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { sessions, execution } = ctx.services;
  const row = requireSessionAccess(ctx, args.remote_session_id, 'viewer').session;
  const view = await sessions.view(row.id);
  const st = view.state === 'running' ? await sessions.status(row.id, 1000).catch(() => null) : null;
  const tasks = execution.tasks.listForSession(row.id, TASKS_LISTED).map(taskSummary);
  const fg = st?.foreground ?? null;
  const awaiting = fg?.awaitingInput === true;
  const screen = fg && awaiting ? await commandScreen(await sessions.ensureLink(row.id), fg).catch(() => null) : null;
  const data = {
    session: view,
    cwd: st?.cwd ?? null,
    shell: st
      ? {
          pid: st.shell.pid,
          alive: st.shell.alive,
          ready: st.shell.ready,
          generation: st.shell.generation,
          ...(st.shell.rcFallback ? { rc_fallback: true, rc_skipped: st.shell.rcSkipped ?? null } : {}),
          ...(st.shell.restarted ? { restarted: st.shell.restarted } : {}),
        }
      : null,
    clock: st
      ? { created_at: st.clock.createdAt, last_pty_activity_at: st.clock.lastPtyActivityAt, last_instruction_at: st.clock.lastInstructionAt, ever_executed: st.clock.everExecuted, busy: st.clock.busy }
      : null,
    foreground: fg ? { execution_task_id: fg.id, command: fg.command, started_at: fg.startedAt, awaiting_input: awaiting, ...(screen !== null ? { screen } : {}) } : null,
    tasks,
  };
  const running = tasks.filter((t) => t.state === 'running').length;
  const actions = fg ? [action('execute', { action: 'attach', remote_session_id: row.id, execution_task_id: fg.id }, 'wait for the command in the terminal')] : [];
  // The foreground task's id and the call that picks it up, in the text too (DESIGN §6.3: many
  // clients give the model only the text block).
  const inTerminal = fg ? `\nIn the terminal: ${fg.id} \`${commandHead(fg.command)}\`${awaiting ? ' (waiting for input)' : ''}; attach with ${callText(actions[0]!)}.` : '';
  const text = `Session ${row.id} is ${view.state}${st ? ` (shell pid ${st.shell.pid}, cwd ${st.cwd ?? '?'}${st.clock.busy ? ', busy' : ''}${sandboxPhrase(view)})` : ''}; ${tasks.length} recent tasks, ${running} running.${inTerminal}${screen ? `\nIts screen:\n${screen}` : ''}`;
  return outcome('observe.session', 'succeeded', data, text, { context: { remote_session_id: row.id }, actions });
}
