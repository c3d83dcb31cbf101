import type { AuditLog } from '../audit.js';
import type { ProjectConfigCache } from '../policy/project-config.js';
import type { IdempotencyRepo } from '../store/idempotency-repo.js';
import type { TasksRepo } from '../store/tasks-repo.js';
import type { TaskSync } from './task-sync.js';

/** What `execute`, `observe` (session/task/logs) and the log resources need besides sessions (wired once by the daemon). */
export interface ExecutionServices {
  tasks: TasksRepo;
  sync: TaskSync;
  audit: AuditLog;
  /** Idempotency receipts (`tool = 'execute'`, receipt `{execution_task_id}`), shared with the file tools. */
  receipts: IdempotencyRepo;
  /** `.holdfast.yaml` per workspace root (command narrowing and project tasks). */
  projects: ProjectConfigCache;
  /**
   * Runs with an `idempotency_key` that are being started, keyed `session \0 key`: settled once
   * the task row and receipt exist and the guardian has the command (or starting failed). A
   * repeated call waits on it instead of starting a second command (in-process only; the receipt
   * row covers restarts).
   */
  starting: Map<string, Promise<void>>;
  /** Interrupts of cancelled runs in progress, by session (issue 9; execution/cancel.ts). */
  interrupting: Map<string, Promise<void>>;
}
