import type { Db } from './db.js';

/** States of a plan task (issue 11). */
export type PlanTaskState = 'pending' | 'in_progress' | 'blocked' | 'completed' | 'dropped';

/** One row of `plans`. Times are epoch ms. */
export interface PlanRow {
  id: string;
  session_id: string;
  workspace: string;
  title: string;
  goal: string;
  state: 'open' | 'delivered';
  revision: number;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/** One row of `plan_tasks`; `depends_on` is a JSON array of plan task ids. */
export interface PlanTaskRow {
  id: string;
  plan_id: string;
  position: number;
  local_id: string | null;
  title: string;
  acceptance: string | null;
  depends_on: string;
  state: PlanTaskState;
  block_reason: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  completed_at: number | null;
}

/** One row of `plan_evidence`; `detail` is JSON. */
export interface EvidenceRow {
  plan_task_id: string;
  seq: number;
  plan_id: string;
  kind: 'execute' | 'edit' | 'artifact' | 'note';
  ref_id: string | null;
  text: string | null;
  exit_code: number | null;
  detail: string | null;
  recorded_at: number;
}

/**
 * Repository of `plans`, `plan_tasks` and `plan_evidence` (issue 11). Callers group the writes of
 * one plan action in {@link transaction}, so a plan never reads back half-changed.
 */
export class PlansRepo {
  private readonly planById;
  private readonly insertPlan;
  private readonly updatePlan;
  private readonly tasksOf;
  private readonly taskById;
  private readonly insertTask;
  private readonly updateTask;
  private readonly evidenceOf;
  private readonly insertEvidence;
  private readonly deletePlan;
  private readonly counts;
  readonly transaction: <T>(fn: () => T) => T;

  constructor(db: Db) {
    this.planById = db.prepare<[string], PlanRow>('SELECT * FROM plans WHERE id = ?');
    this.insertPlan = db.prepare(
      `INSERT INTO plans (id, session_id, workspace, title, goal, state, revision, created_at, updated_at, delivered_at)
       VALUES (@id, @session_id, @workspace, @title, @goal, @state, @revision, @created_at, @updated_at, @delivered_at)`,
    );
    this.updatePlan = db.prepare('UPDATE plans SET state = @state, revision = @revision, updated_at = @updated_at, delivered_at = @delivered_at WHERE id = @id');
    this.tasksOf = db.prepare<[string], PlanTaskRow>('SELECT * FROM plan_tasks WHERE plan_id = ? ORDER BY position');
    this.taskById = db.prepare<[string], PlanTaskRow>('SELECT * FROM plan_tasks WHERE id = ?');
    this.insertTask = db.prepare(
      `INSERT INTO plan_tasks (id, plan_id, position, local_id, title, acceptance, depends_on, state, block_reason, created_at, updated_at, started_at, completed_at)
       VALUES (@id, @plan_id, @position, @local_id, @title, @acceptance, @depends_on, @state, @block_reason, @created_at, @updated_at, @started_at, @completed_at)`,
    );
    this.updateTask = db.prepare(
      'UPDATE plan_tasks SET position = @position, state = @state, block_reason = @block_reason, updated_at = @updated_at, started_at = @started_at, completed_at = @completed_at WHERE id = @id',
    );
    this.evidenceOf = db.prepare<[string], EvidenceRow>('SELECT * FROM plan_evidence WHERE plan_id = ? ORDER BY plan_task_id, seq');
    this.insertEvidence = db.prepare(
      `INSERT INTO plan_evidence (plan_task_id, seq, plan_id, kind, ref_id, text, exit_code, detail, recorded_at)
       VALUES (@plan_task_id, @seq, @plan_id, @kind, @ref_id, @text, @exit_code, @detail, @recorded_at)`,
    );
    this.deletePlan = db.prepare('DELETE FROM plans WHERE id = ?');
    this.counts = db.prepare<[], { plans: number; tasks: number; evidence: number }>(
      'SELECT (SELECT COUNT(*) FROM plans) AS plans, (SELECT COUNT(*) FROM plan_tasks) AS tasks, (SELECT COUNT(*) FROM plan_evidence) AS evidence',
    );
    this.transaction = <T>(fn: () => T): T => db.transaction(fn)();
  }

  getPlan(id: string): PlanRow | undefined {
    return this.planById.get(id);
  }

  getTask(id: string): PlanTaskRow | undefined {
    return this.taskById.get(id);
  }

  /** Tasks of a plan in plan order. */
  tasks(planId: string): PlanTaskRow[] {
    return this.tasksOf.all(planId);
  }

  /** Evidence of a plan, grouped by task, in recording order. */
  evidence(planId: string): EvidenceRow[] {
    return this.evidenceOf.all(planId);
  }

  addPlan(row: PlanRow): void {
    this.insertPlan.run(row);
  }

  savePlan(row: Pick<PlanRow, 'id' | 'state' | 'revision' | 'updated_at' | 'delivered_at'>): void {
    this.updatePlan.run(row);
  }

  addTask(row: PlanTaskRow): void {
    this.insertTask.run(row);
  }

  saveTask(row: Pick<PlanTaskRow, 'id' | 'position' | 'state' | 'block_reason' | 'updated_at' | 'started_at' | 'completed_at'>): void {
    this.updateTask.run(row);
  }

  addEvidence(row: EvidenceRow): void {
    this.insertEvidence.run(row);
  }

  /** Deletes a plan with its tasks and evidence (ON DELETE CASCADE). */
  delete(id: string): void {
    this.deletePlan.run(id);
  }

  /** Row counts (doctor). */
  stats(): { plans: number; tasks: number; evidence: number } {
    return this.counts.get() ?? { plans: 0, tasks: 0, evidence: 0 };
  }
}
