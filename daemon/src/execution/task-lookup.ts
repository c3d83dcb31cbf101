import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';
import type { TaskRow, TasksRepo } from '../store/tasks-repo.js';

/**
 * The row of an execution task of this session.
 * @throws HoldfastError `BAD_REQUEST` when no id is given; `TASK_NOT_FOUND` for an id that is not a
 *   task of this session (another session's task is not found either).
 */
export function requireTaskRow(tasks: TasksRepo, id: string | undefined, sessionId: string, what: string): TaskRow {
  if (id === undefined) throw new HoldfastError('BAD_REQUEST', `${what} needs execution_task_id (the task_… id from execute)`);
  const row = isId('executionTask', id) ? tasks.get(id) : undefined;
  if (!row || row.session_id !== sessionId) {
    throw new HoldfastError('TASK_NOT_FOUND', `no execution task ${id} in session ${sessionId}; list them with observe(view="session")`, { retryable: false });
  }
  return row;
}

/** A task row as listed in views (no output). */
export function taskSummary(row: TaskRow): Record<string, unknown> {
  return {
    execution_task_id: row.id,
    kind: row.kind,
    state: row.state,
    ...(row.origin === 'task' ? { task: row.task_name } : {}),
    ...(row.argv ? { argv: JSON.parse(row.argv) as string[] } : { command: row.command }),
    ...(row.purpose ? { purpose: row.purpose } : {}),
    exit_code: row.exit_code,
    ...(row.signal ? { signal: row.signal } : {}),
    created_at: row.created_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
  };
}
