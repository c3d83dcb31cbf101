import type { EvidenceRow, PlanRow, PlansRepo, PlanTaskRow, PlanTaskState } from '../../store/plans-repo.js';

/** One evidence item as `plan` returns it. */
export function evidenceView(e: EvidenceRow): Record<string, unknown> {
  const ref = e.kind === 'execute' ? { execution_task_id: e.ref_id } : e.kind === 'edit' ? { edit_id: e.ref_id } : e.kind === 'artifact' ? { artifact_id: e.ref_id } : {};
  return {
    kind: e.kind,
    ...ref,
    ...(e.text !== null ? { text: e.text } : {}),
    ...(e.kind === 'execute' ? { exit_code: e.exit_code } : {}),
    ...(e.detail ? { facts: JSON.parse(e.detail) as Record<string, unknown> } : {}),
    recorded_at: e.recorded_at,
  };
}

/** One task as `plan` returns it (with its evidence). */
export function taskView(t: PlanTaskRow, evidence: EvidenceRow[]): Record<string, unknown> {
  return {
    plan_task_id: t.id,
    ...(t.local_id !== null ? { local_id: t.local_id } : {}),
    title: t.title,
    ...(t.acceptance !== null ? { acceptance: t.acceptance } : {}),
    depends_on: JSON.parse(t.depends_on) as string[],
    state: t.state,
    ...(t.block_reason !== null ? { block_reason: t.block_reason } : {}),
    started_at: t.started_at,
    completed_at: t.completed_at,
    evidence: evidence.map(evidenceView),
  };
}

/** Tasks per state. */
export function stateCounts(tasks: readonly PlanTaskRow[]): Record<PlanTaskState, number> {
  const counts: Record<PlanTaskState, number> = { pending: 0, in_progress: 0, blocked: 0, completed: 0, dropped: 0 };
  for (const t of tasks) counts[t.state]++;
  return counts;
}

/**
 * The whole plan (issue 11 `plan(read)`): its facts, revision, every task in plan order with its
 * state and evidence. Deterministic: the same stored plan always reads back the same.
 */
export function planData(plans: PlansRepo, plan: PlanRow): { data: Record<string, unknown>; tasks: PlanTaskRow[] } {
  const tasks = plans.tasks(plan.id);
  const byTask = new Map<string, EvidenceRow[]>();
  for (const e of plans.evidence(plan.id)) {
    const list = byTask.get(e.plan_task_id) ?? [];
    list.push(e);
    byTask.set(e.plan_task_id, list);
  }
  return {
    tasks,
    data: {
      plan_id: plan.id,
      title: plan.title,
      goal: plan.goal,
      state: plan.state,
      plan_revision: plan.revision,
      created_at: plan.created_at,
      updated_at: plan.updated_at,
      delivered_at: plan.delivered_at,
      counts: stateCounts(tasks),
      tasks: tasks.map((t) => taskView(t, byTask.get(t.id) ?? [])),
    },
  };
}

const MARK: Record<PlanTaskState, string> = { pending: '[ ]', in_progress: '[>]', blocked: '[!]', completed: '[x]', dropped: '[-]' };

/** A plan as short human-readable lines (the result's text block). */
export function planText(plan: PlanRow, tasks: readonly PlanTaskRow[]): string {
  const c = stateCounts(tasks);
  const open = tasks.length - c.dropped;
  const head = `Plan ${plan.id} "${plan.title}" (${plan.state}, revision ${plan.revision}): ${c.completed}/${open} completed`;
  const lines = tasks.map((t) => {
    const deps = JSON.parse(t.depends_on) as string[];
    return `${MARK[t.state]} ${t.id} ${t.title}${deps.length > 0 ? ` (after ${deps.join(', ')})` : ''}${t.block_reason && t.state === 'blocked' ? ` — blocked: ${t.block_reason}` : ''}`;
  });
  return [head, ...lines].join('\n');
}
