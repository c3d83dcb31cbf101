import { requireTaskRow, taskSummary } from '../../execution/task-lookup.js';
import { taskLogUri } from '../../execution/rendered-output.js';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import type { ObserveArgs } from './index.js';
import { requireSessionAccess } from '../../sessions/access.js';

/**
 * `observe(view="task")` (issue 5): one execution task — what ran, where, why, its state, exit
 * code, times, output offsets, policy decision and log URI — without its output (see view=logs).
 * A running task is refreshed from its guardian first.
 */
export async function taskView(args: ObserveArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { sessions, execution } = ctx.services;
  const session = requireSessionAccess(ctx, args.remote_session_id, 'viewer').session;
  let row = requireTaskRow(execution.tasks, args.execution_task_id, session.id, 'view=task');
  if (row.state === 'running') {
    try {
      const link = await sessions.ensureLink(session.id);
      row = execution.sync.apply(await link.wait({ id: row.id, waitMs: 0 })) ?? row;
    } catch {
      // the stored row is the best we know
    }
  }
  const data = {
    ...taskSummary(row),
    ...(row.cwd ? { cwd: row.cwd } : {}),
    ...(row.env_keys ? { env_keys: JSON.parse(row.env_keys) as string[] } : {}),
    policy: { decision: row.policy_decision, rule: row.policy_rule },
    offsets: row.kind === 'foreground' ? { output_start: row.pty_start, output_end: row.pty_end } : { stdout_end: row.stdout_end, stderr_end: row.stderr_end },
    ...(row.expires_at ? { confirmation_expires_at: row.expires_at } : {}),
    ...(row.error ? { error: row.error } : {}),
    log_uri: taskLogUri(row.session_id, row.id),
  };
  const rs = row.session_id;
  const actions = [action('observe', { view: 'logs', remote_session_id: rs, execution_task_id: row.id }, 'read its output')];
  if (row.state === 'running') {
    actions.push(action('execute', { action: 'attach', remote_session_id: rs, execution_task_id: row.id }, 'wait for it'));
    actions.push(action('execute', { action: 'stop', remote_session_id: rs, execution_task_id: row.id }, 'stop it'));
  }
  const what = row.argv ? (JSON.parse(row.argv) as string[]).join(' ') : row.command;
  const text = `${row.id} (${row.kind}) ${row.state}${row.exit_code !== null ? `, exit code ${row.exit_code}` : ''}: ${what}`;
  return outcome('observe.task', 'succeeded', data, text, { context: { remote_session_id: rs, execution_task_id: row.id }, actions });
}
