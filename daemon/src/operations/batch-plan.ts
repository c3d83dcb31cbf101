import { HoldfastError } from '@holdfast/shared/errors';
import { OperationLimits } from '@holdfast/shared/constants';
import { BatchStep, findTool, UNBATCHABLE_TOOLS } from '@holdfast/shared/tools';
import { argsDigest } from '../tools/idempotency.js';
import { findCycle } from '../work/plan-graph.js';

const STEP_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** One checked step, ready to store. */
export interface PlannedStep {
  id: string;
  tool: string;
  /** The arguments as the tool will get them (`remote_session_id` filled in). */
  arguments: Record<string, unknown>;
  depends_on: string[];
}

/** A checked batch: its steps in request order and the digest a repeat must match. */
export interface BatchPlan {
  steps: PlannedStep[];
  /** sha256 over the canonical steps (ids, tools, arguments, dependencies). */
  digest: string;
}

const refuse = (message: string, details: Record<string, unknown> = {}): never => {
  throw new HoldfastError('BAD_REQUEST', message, { retryable: false, details });
};

/**
 * Checks a batch before anything runs (issue 12): 1–32 steps, each `{id, tool, arguments,
 * depends_on}` and nothing else, with unique ids; every `depends_on`
 * names another step of the batch; no cycle; each tool is a session tool the principal may call
 * (never `operation_batch`, `operation_manage`, `secret_provide` or `session`) and its arguments
 * parse with the tool's schema. A step's `remote_session_id` defaults to the batch's and may not
 * name another session.
 * @throws HoldfastError BAD_REQUEST naming the step and the problem (nothing is stored or run),
 *   TOOL_NOT_ALLOWED for a tool the principal may not call.
 */
export function planBatch(given: readonly unknown[], remoteSessionId: string, allowedTools: readonly string[]): BatchPlan {
  const steps = given.map((raw, i) => {
    const p = BatchStep.safeParse(raw);
    if (!p.success) {
      const issue = p.error.issues[0]!;
      refuse(`steps[${i}]: ${issue.path.join('.') || 'step'}: ${issue.message} (a step is {id, tool, arguments, depends_on})`, { step: i });
    }
    return p.data!;
  });
  if (steps.length < 1 || steps.length > OperationLimits.STEPS_MAX) refuse(`a batch has 1 to ${OperationLimits.STEPS_MAX} steps (got ${steps.length})`);
  const ids = new Set<string>();
  for (const s of steps) {
    if (!STEP_ID_RE.test(s.id)) refuse(`step id ${JSON.stringify(s.id)} must be 1-64 letters, digits, '_', '.' or '-'`, { step_id: s.id });
    if (ids.has(s.id)) refuse(`step id "${s.id}" is used twice; every step needs its own`, { step_id: s.id });
    ids.add(s.id);
  }
  const planned: PlannedStep[] = steps.map((s) => {
    const def = findTool(s.tool);
    if (!def) refuse(`step "${s.id}": there is no tool "${s.tool}"`, { step_id: s.id, tool: s.tool });
    if (UNBATCHABLE_TOOLS.includes(s.tool) || !def!.workTracking) {
      refuse(`step "${s.id}": ${s.tool} cannot be a batch step (steps are session tools other than ${UNBATCHABLE_TOOLS.join(', ')})`, { step_id: s.id, tool: s.tool });
    }
    if (!allowedTools.includes(s.tool)) {
      throw new HoldfastError('TOOL_NOT_ALLOWED', `step "${s.id}": tool ${s.tool} is not allowed for this principal`, { retryable: false, details: { step_id: s.id, tool: s.tool } });
    }
    const given = s.arguments ?? {};
    if (given.remote_session_id !== undefined && given.remote_session_id !== remoteSessionId) {
      refuse(`step "${s.id}": every step runs in the batch's session ${remoteSessionId}; remove its remote_session_id or use the same one`, { step_id: s.id });
    }
    const args = { ...given, remote_session_id: remoteSessionId };
    const parsed = def!.input.safeParse(args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      refuse(`step "${s.id}" (${s.tool}): ${issue.path.join('.') || 'arguments'}: ${issue.message}`, { step_id: s.id });
    }
    const deps = [...new Set(s.depends_on ?? [])];
    for (const d of deps) {
      if (d === s.id) refuse(`step "${s.id}" depends on itself`, { step_id: s.id });
      if (!ids.has(d)) refuse(`step "${s.id}" depends on "${d}", which is not a step of this batch`, { step_id: s.id, unknown: d });
    }
    return { id: s.id, tool: s.tool, arguments: args, depends_on: deps };
  });
  const index = new Map(planned.map((s, i) => [s.id, i]));
  const cycle = findCycle(
    planned.map((s) => s.id),
    (i) => planned[i]!.depends_on.map((d) => index.get(d)!),
  );
  if (cycle) refuse(`the steps' dependencies form a cycle: ${cycle.join(' → ')}; nothing was run`, { cycle });
  return { steps: planned, digest: argsDigest(planned) };
}
