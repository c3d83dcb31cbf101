import { FileLimits } from '@holdfast/shared/constants';
import type { HomeLayout } from '@holdfast/shared/paths';
import { AuditLog } from '../audit.js';
import type { Logger } from '../log.js';
import { ProjectConfigCache } from '../policy/project-config.js';
import type { SessionManager } from '../sessions/manager.js';
import type { Db } from '../store/db.js';
import { IdempotencyRepo } from '../store/idempotency-repo.js';
import { TasksRepo } from '../store/tasks-repo.js';
import type { ExecutionServices } from './services.js';
import { TaskSync } from './task-sync.js';

/** The execution engine's services plus what the daemon starts and stops with it (retention: daemon/src/retention.ts). */
export interface ExecutionEngine {
  services: ExecutionServices;
  /** After recovery: reconcile rows left `running` (async, never throws). */
  start(): void;
  stop(): void;
}

/** Wires the execution engine (issue 5) once per daemon. */
export function createExecutionEngine(db: Db, layout: HomeLayout, sessions: SessionManager, log: Logger): ExecutionEngine {
  const tasks = new TasksRepo(db);
  const sync = new TaskSync(layout, tasks, sessions);
  sync.attach();
  const audit = new AuditLog(layout.auditLog);
  const services: ExecutionServices = {
    tasks,
    sync,
    audit,
    receipts: new IdempotencyRepo(db, FileLimits.IDEMPOTENCY_TTL_MS),
    projects: new ProjectConfigCache(),
    starting: new Map(),
    interrupting: new Map(),
  };
  return {
    services,
    start() {
      void sync.reconcileAll().catch((err: unknown) => log.warn('task reconciliation failed', { error: (err as Error).message }));
    },
    stop() {
      audit.close();
    },
  };
}
