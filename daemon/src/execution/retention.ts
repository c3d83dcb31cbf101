import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { guardianPaths, type HomeLayout } from '@holdfast/shared/paths';
import type { Logger } from '../log.js';
import type { SessionsRepo } from '../store/sessions-repo.js';
import type { TasksRepo } from '../store/tasks-repo.js';

/** How often retention runs, ms (and once shortly after start). */
export const RETENTION_SWEEP_INTERVAL_MS = 6 * 60 * 60 * 1000;
const FIRST_SWEEP_DELAY_MS = 30_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Retention of finished tasks (issue 5, `retention.task_days`, default 30; 0 keeps everything):
 * task rows created before the cutoff (and no longer running) are deleted with their piped log
 * folders, and the folders of sessions that ended before the cutoff (PTY log, task logs,
 * exit.json) are removed. Runs off the request path on a timer.
 */
export class TaskRetention {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly layout: HomeLayout,
    private readonly tasks: TasksRepo,
    private readonly sessions: SessionsRepo,
    private readonly days: () => number,
    private readonly log: Logger,
  ) {}

  start(): void {
    const tick = (delay: number): void => {
      this.timer = setTimeout(() => {
        try {
          this.sweep();
        } catch (err) {
          this.log.warn('task retention sweep failed', { error: (err as Error).message });
        }
        tick(RETENTION_SWEEP_INTERVAL_MS);
      }, delay);
      this.timer.unref();
    };
    tick(FIRST_SWEEP_DELAY_MS);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One pass; returns what it removed. */
  sweep(now: number = Date.now()): { tasks: number; sessions: number } {
    const days = this.days();
    if (!(days > 0)) return { tasks: 0, sessions: 0 };
    const cutoff = now - days * DAY_MS;
    let tasks = 0;
    for (;;) {
      const rows = this.tasks.listOlderThan(cutoff);
      if (rows.length === 0) break;
      for (const r of rows) {
        if (r.kind !== 'foreground') rmSync(join(guardianPaths(this.layout, r.session_id).tasksDir, r.id), { recursive: true, force: true });
        this.tasks.delete(r.id);
        tasks++;
      }
    }
    let sessions = 0;
    for (const s of this.sessions.listAll()) {
      if (s.state === 'running' || s.state === 'starting' || s.ended_at === null || s.ended_at >= cutoff) continue;
      const dir = guardianPaths(this.layout, s.id).sessionDir;
      rmSync(dir, { recursive: true, force: true });
      sessions++;
    }
    if (tasks > 0) this.log.info('task retention', { removed_tasks: tasks, cutoff_days: days });
    return { tasks, sessions };
  }
}
