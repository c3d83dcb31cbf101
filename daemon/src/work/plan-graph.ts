import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';

/** A task of a create/replan request as the graph check sees it. */
export interface GraphTask {
  local_id: string;
  depends_on?: string[] | undefined;
}

/** What {@link resolveNewTasks} found: per new task (in request order) the plan task ids it depends on. */
export interface ResolvedTasks {
  /** local_id → the new task's plan task id. */
  ids: Map<string, string>;
  /** depends_on of each new task, as plan task ids, in request order. */
  deps: string[][];
}

/**
 * Resolves the `local_id`s of new plan tasks (issue 11 `plan(create)`, `replan` additions):
 * `local_id`s are unique within the request; `depends_on` names local ids of this request or,
 * when `existing` is given (replan), plan task ids already in the plan. A task may not depend on
 * itself, and the new tasks' dependencies may not form a cycle (existing tasks never depend on new
 * ones, so a cycle can only run through new tasks).
 * @param newId mints a plan task id.
 * @throws HoldfastError PLAN_INVALID naming the duplicate, the unknown id or the cycle; nothing is kept.
 */
export function resolveNewTasks(tasks: readonly GraphTask[], newId: () => string, existing: ReadonlySet<string> = new Set()): ResolvedTasks {
  const ids = new Map<string, string>();
  for (const t of tasks) {
    if (ids.has(t.local_id)) throw invalid(`local_id "${t.local_id}" is used twice; every task needs its own`, { local_id: t.local_id });
    if (isId('planTask', t.local_id)) throw invalid(`local_id "${t.local_id}" looks like a plan task id; pick a short name of your own`, { local_id: t.local_id });
    ids.set(t.local_id, newId());
  }
  const deps = tasks.map((t) =>
    (t.depends_on ?? []).map((d) => {
      if (d === t.local_id) throw invalid(`task "${t.local_id}" depends on itself`, { local_id: t.local_id });
      const id = ids.get(d) ?? (existing.has(d) ? d : undefined);
      if (id === undefined) {
        const known = existing.size > 0 ? 'a local_id of this request or a plan_task_id of this plan' : 'a local_id of this request';
        throw invalid(`task "${t.local_id}" depends on "${d}", which is not ${known}`, { local_id: t.local_id, unknown: d });
      }
      return id;
    }),
  );
  const cycle = findCycle(tasks.map((t) => t.local_id), (i) => (tasks[i]!.depends_on ?? []).map((d) => tasks.findIndex((x) => x.local_id === d)).filter((j) => j >= 0));
  if (cycle) throw invalid(`the dependencies form a cycle: ${cycle.join(' → ')}`, { cycle });
  return { ids, deps };
}

/**
 * A dependency cycle among `names` (edges by index), as names from its first node back to it, or
 * null. Iterative depth-first search with colours (no recursion limit on long chains).
 */
export function findCycle(names: readonly string[], edges: (i: number) => number[]): string[] | null {
  const colour = new Array<0 | 1 | 2>(names.length).fill(0);
  const parent = new Array<number>(names.length).fill(-1);
  for (let root = 0; root < names.length; root++) {
    if (colour[root] !== 0) continue;
    const stack: { node: number; next: number[] }[] = [{ node: root, next: edges(root) }];
    colour[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const to = top.next.shift();
      if (to === undefined) {
        colour[top.node] = 2;
        stack.pop();
        continue;
      }
      if (colour[to] === 1) {
        const path = [names[to]!];
        for (let n = top.node; n !== to && n !== -1; n = parent[n]!) path.push(names[n]!);
        path.push(names[to]!);
        return path.reverse();
      }
      if (colour[to] === 0) {
        colour[to] = 1;
        parent[to] = top.node;
        stack.push({ node: to, next: edges(to) });
      }
    }
  }
  return null;
}

function invalid(message: string, details: Record<string, unknown>): HoldfastError {
  return new HoldfastError('PLAN_INVALID', `${message}; nothing was changed`, { retryable: false, details });
}
