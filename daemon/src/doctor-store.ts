import { statSync } from 'node:fs';
import type { DoctorCheck } from '@holdfast/shared/control';
import type { HomeLayout } from '@holdfast/shared/paths';
import type { Retention } from './retention.js';
import type { Db } from './store/db.js';
import type { EventsRetention } from './store/events-repo.js';
import type { SessionsRepo } from './store/sessions-repo.js';
import type { TasksRepo } from './store/tasks-repo.js';
import { folderBytes } from './work/artifact-store.js';
import type { WorkServices } from './work/services.js';

/** What `holdfast doctor` reads to say what the store holds (issue 11). */
export interface StoreFacts {
  work: WorkServices;
  retention: Retention;
  events: EventsRetention;
  tasks: TasksRepo;
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Bytes as a short human size. */
export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

/**
 * The doctor's `store` and `retention` checks (issue 11): rows per kind and bytes on disk (database
 * with its WAL, session logs, artifacts, logs), then what a retention sweep now would remove, the
 * clocks in force and when the next sweep runs. Counts and sizes only, never contents.
 */
export function storeChecks(layout: HomeLayout, db: Db, sessions: SessionsRepo, f: StoreFacts): DoctorCheck[] {
  const count = (table: string): number => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  const ev = f.events.stats();
  const plans = f.work.plans.stats();
  const art = f.work.artifacts.stats();
  const bytes = {
    database: fileBytes(layout.db) + fileBytes(`${layout.db}-wal`),
    session_logs: folderBytes(layout.sessionsDir),
    artifacts: f.work.store.diskBytes(),
    logs: folderBytes(layout.logsDir),
  };
  const rows = {
    sessions: sessions.listAll().length,
    events: ev.events,
    tasks: count('tasks'),
    plans: plans.plans,
    plan_tasks: plans.tasks,
    evidence: plans.evidence,
    artifacts: art.artifacts,
    progress_reports: f.work.progress.total(),
    idempotency_receipts: count('idempotency_receipts'),
  };
  const held: DoctorCheck = {
    name: 'store',
    ok: true,
    detail:
      `${rows.sessions} sessions, ${rows.events} events${ev.oldest_at ? ` (oldest ${new Date(ev.oldest_at).toISOString()})` : ''}, ${rows.tasks} tasks, ${rows.plans} plans (${rows.plan_tasks} tasks, ${rows.evidence} evidence), ` +
      `${rows.artifacts} artifacts, ${rows.progress_reports} progress reports, ${rows.idempotency_receipts} receipts; on disk: database ${humanBytes(bytes.database)}, ` +
      `session logs ${humanBytes(bytes.session_logs)}, artifacts ${humanBytes(bytes.artifacts)}, logs ${humanBytes(bytes.logs)}`,
    data: { rows, bytes, oldest_event_at: ev.oldest_at },
  };
  // Counted at the time the next sweep runs: what will have aged out by then.
  const next = f.retention.preview(f.retention.nextSweepAt ?? Date.now());
  const cfg = f.retention.clocks();
  const clocks = `task_days ${cfg.task_days}, event_days ${cfg.event_days}, artifact_days ${cfg.artifact_days}, plan_days ${cfg.plan_days}, operation_days ${cfg.operation_days} (0 keeps forever)`;
  const due = f.retention.nextSweepAt ? new Date(f.retention.nextSweepAt).toISOString() : 'not scheduled';
  const removes =
    `${next.tasks} tasks, ${next.sessions} session log folders, ${next.events} events, ${next.artifacts} artifacts (${humanBytes(next.artifact_bytes)}), ${next.plans} plans, ${next.receipts} receipts`;
  const retention: DoctorCheck = {
    name: 'retention',
    ok: true,
    detail: `next sweep ${due} removes ${removes}; ${clocks}; kept whatever their age: running tasks, what undelivered plans cite, artifacts and events of live sessions`,
    data: { next_sweep_at: f.retention.nextSweepAt, removes_next: next, clocks: cfg, ...(f.retention.last ? { last_sweep: f.retention.last } : {}) },
  };
  return [held, retention];
}
