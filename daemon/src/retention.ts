import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { HoldfastConfig } from '@holdfast/shared/config';
import { FileLimits } from '@holdfast/shared/constants';
import { guardianPaths, type HomeLayout } from '@holdfast/shared/paths';
import type { Logger } from './log.js';
import type { EventsRetention } from './store/events-repo.js';
import type { PlansRepo } from './store/plans-repo.js';
import type { RetentionQueries } from './store/retention-queries.js';
import type { TasksRepo } from './store/tasks-repo.js';
import type { ArtifactsRepo } from './store/artifacts-repo.js';
import type { ArtifactStore } from './work/artifact-store.js';
import type { EnvironmentSnapshotsRepo } from './store/environment-snapshots-repo.js';
import type { OperationsRepo } from './store/operations-repo.js';

/** The first sweep runs this long after start (or after `sweep_interval_s` when that is shorter), ms. */
const FIRST_SWEEP_DELAY_MS = 30_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What retention reads and removes. */
export interface RetentionStores {
  layout: HomeLayout;
  queries: RetentionQueries;
  tasks: TasksRepo;
  plans: PlansRepo;
  artifacts: ArtifactsRepo;
  artifactStore: ArtifactStore;
  events: EventsRetention;
  /** Operations (issue 12): step results expire on `operation_days`, tombstones go with the session's events. */
  operations: OperationsRepo;
  /** Environment snapshots (issue 12): they go with the events of their ended session. */
  snapshots: EnvironmentSnapshotsRepo;
}

/** What one sweep removes (or, from {@link Retention.preview}, would remove now). */
export interface RetentionReport {
  /** Finished tasks (rows and their log folders). */
  tasks: number;
  /** Folders of sessions that ended before the task cutoff (PTY log, task logs, exit.json). */
  sessions: number;
  events: number;
  artifacts: number;
  artifact_bytes: number;
  plans: number;
  /** Idempotency receipts past their TTL. */
  receipts: number;
  /** Finished operations whose step results expired (issue 12). */
  operations: number;
}

/** The cutoff (epoch ms) of a clock in days, or null when 0 keeps everything. */
function cutoffOf(days: number, now: number): number | null {
  return days > 0 ? now - days * DAY_MS : null;
}

/**
 * Retention (issue 5 tasks; issue 11 every kind, `config.yaml` `retention:`): each kind ages out
 * on its own clock — finished tasks and their logs and the folders of sessions that ended
 * (`task_days`), events of ended sessions and daemon-wide events, with those sessions' progress
 * reports and activity (`event_days`), artifacts of ended sessions (`artifact_days`), delivered
 * plans and plans of ended sessions (`plan_days`), idempotency receipts past their TTL, the step
 * results of finished operations (`operation_days`, issue 12; a tombstone row keeps answering
 * `OPERATION_RESULT_EXPIRED` until the session's events go; environment snapshots go then too). Kept
 * whatever their age: running tasks, whatever an undelivered plan cites (tasks and their logs,
 * artifacts), artifacts and events of live sessions. Plans go first, so evidence a removed plan
 * held is released in the same sweep. Runs off the request path on a timer; `preview` counts
 * what a sweep now would remove (`holdfast doctor`).
 */
export class Retention {
  private timer: NodeJS.Timeout | null = null;
  /** When the next sweep is due (epoch ms; null when stopped). */
  nextSweepAt: number | null = null;
  /** What the last sweep removed, and when. */
  last: { at: number; removed: RetentionReport } | null = null;

  constructor(
    private readonly stores: RetentionStores,
    private readonly config: () => HoldfastConfig['retention'],
    private readonly log: Logger,
  ) {}

  start(): void {
    const tick = (delay: number): void => {
      this.nextSweepAt = Date.now() + delay;
      this.timer = setTimeout(() => {
        try {
          this.sweep();
        } catch (err) {
          this.log.warn('retention sweep failed', { error: (err as Error).message });
        }
        tick(this.config().sweep_interval_s * 1000);
      }, delay);
      this.timer.unref();
    };
    tick(Math.min(FIRST_SWEEP_DELAY_MS, this.config().sweep_interval_s * 1000));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.nextSweepAt = null;
  }

  /** The clocks in force (`config.yaml` `retention:`). */
  clocks(): HoldfastConfig['retention'] {
    return this.config();
  }

  /** What a sweep at `now` would remove (counts only; session folders are those of ended sessions). */
  preview(now: number = Date.now()): RetentionReport {
    const c = this.config();
    const q = this.stores.queries;
    const task = cutoffOf(c.task_days, now);
    const event = cutoffOf(c.event_days, now);
    const artifact = cutoffOf(c.artifact_days, now);
    const plan = cutoffOf(c.plan_days, now);
    const a = artifact === null ? { artifacts: 0, bytes: 0 } : q.countExpiredArtifacts(artifact);
    return {
      tasks: task === null ? 0 : q.countExpiredTasks(task),
      sessions: task === null ? 0 : q.sessionsEndedBefore(task).filter((id) => !q.sessionHasCitedTasks(id)).length,
      events: event === null ? 0 : this.stores.events.countExpired(event),
      artifacts: a.artifacts,
      artifact_bytes: a.bytes,
      plans: plan === null ? 0 : q.countExpiredPlans(plan),
      receipts: q.countExpiredReceipts(now - FileLimits.IDEMPOTENCY_TTL_MS),
      operations: c.operation_days > 0 ? this.stores.operations.countExpired(now - c.operation_days * DAY_MS) : 0,
    };
  }

  /** One pass; returns what it removed. */
  sweep(now: number = Date.now()): RetentionReport {
    const c = this.config();
    const { queries: q, layout } = this.stores;
    const removed: RetentionReport = { tasks: 0, sessions: 0, events: 0, artifacts: 0, artifact_bytes: 0, plans: 0, receipts: 0, operations: 0 };

    const plan = cutoffOf(c.plan_days, now);
    if (plan !== null) {
      for (let ids = q.expiredPlans(plan); ids.length > 0; ids = q.expiredPlans(plan)) {
        for (const id of ids) this.stores.plans.delete(id);
        removed.plans += ids.length;
      }
    }

    const task = cutoffOf(c.task_days, now);
    if (task !== null) {
      for (let rows = q.expiredTasks(task); rows.length > 0; rows = q.expiredTasks(task)) {
        for (const r of rows) {
          if (r.kind !== 'foreground') rmSync(join(guardianPaths(layout, r.session_id).tasksDir, r.id), { recursive: true, force: true });
          this.stores.tasks.delete(r.id);
          removed.tasks++;
        }
      }
      for (const id of q.sessionsEndedBefore(task)) {
        // A session whose task an undelivered plan cites keeps its logs (the evidence stays readable).
        if (q.sessionHasCitedTasks(id)) continue;
        rmSync(guardianPaths(layout, id).sessionDir, { recursive: true, force: true });
        removed.sessions++;
      }
    }

    const artifact = cutoffOf(c.artifact_days, now);
    if (artifact !== null) {
      for (let rows = q.expiredArtifacts(artifact); rows.length > 0; rows = q.expiredArtifacts(artifact)) {
        for (const r of rows) {
          this.stores.artifacts.delete(r.id);
          this.stores.artifactStore.remove(r.session_id, r.id);
          removed.artifacts++;
          removed.artifact_bytes += r.byte_length;
        }
      }
    }

    const event = cutoffOf(c.event_days, now);
    if (event !== null) {
      removed.events = this.stores.events.deleteExpired(event);
      q.deleteEndedSessionState(event);
      this.stores.snapshots.deleteOfEndedSessions(event);
      this.stores.operations.deleteTombstones(event);
    }
    const operation = cutoffOf(c.operation_days, now);
    if (operation !== null) removed.operations = this.stores.operations.expireResults(operation, now);
    removed.receipts = q.deleteExpiredReceipts(now - FileLimits.IDEMPOTENCY_TTL_MS);

    this.last = { at: now, removed };
    if (Object.values(removed).some((n) => n > 0)) this.log.info('retention', { ...removed });
    return removed;
  }
}
