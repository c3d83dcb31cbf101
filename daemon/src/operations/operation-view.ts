import type { ToolCallResult } from '@holdfast/shared/control';
import { OperationLimits, OutputLimits } from '@holdfast/shared/constants';
import type { ResultAction, ResultStatus } from '@holdfast/shared/tools';
import type { OperationRow, OperationState, StepRow } from '../store/operations-repo.js';
import { utf8Prefix } from '../execution/rendered-output.js';
import { action, outcome, type ToolOutcome } from '../tools/envelope.js';
import { resultEnvelope } from './operation-runner.js';

/** How much of the step results a view carries. */
export type ResultMode = 'none' | 'expanded' | 'page';

/** Envelope status of an operation state (DESIGN §6.3): a running one is `accepted`, a cancelled one `interrupted`. */
export function statusOf(state: OperationState): ResultStatus {
  switch (state) {
    case 'running':
      return 'accepted';
    case 'cancelled':
      return 'interrupted';
    default:
      return state;
  }
}

const parsedResults = new WeakMap<StepRow, ToolCallResult>();

/** A finished step's stored call result, parsed once per row (views, text and confirmation read it). */
function parsedResult(s: StepRow): ToolCallResult {
  let r = parsedResults.get(s);
  if (r === undefined) {
    r = JSON.parse(s.result!) as ToolCallResult;
    parsedResults.set(s, r);
  }
  return r;
}

/** One step's stored result as a view shows it: the step's §6.3 envelope (plus `content` for a pass-through result). */
function stepResult(r: ToolCallResult): Record<string, unknown> {
  const env = resultEnvelope(r) as unknown as Record<string, unknown> | null;
  const passThrough = r._meta?.['holdfast/envelope'] !== undefined;
  if (env && !passThrough) return env;
  return { ...(env ?? {}), content: r.content };
}

/** The data of an operation: its state and each step; step results per `mode`, paged by step `offset` within a byte budget. */
export function operationData(op: OperationRow, steps: StepRow[], mode: ResultMode, offset = 0, budget: number = OperationLimits.RESULT_PAGE_BYTES): Record<string, unknown> {
  const counts: Record<string, number> = {};
  for (const s of steps) counts[s.state] = (counts[s.state] ?? 0) + 1;
  let used = 0;
  let next: number | null = null;
  const views = steps.map((s, i) => {
    const v: Record<string, unknown> = {
      id: s.step_id,
      tool: s.tool,
      state: s.state,
      state_sequence: s.state_sequence,
    };
    const deps = JSON.parse(s.depends_on) as string[];
    if (deps.length > 0) v.depends_on = deps;
    if (s.execution_task_id) v.execution_task_id = s.execution_task_id;
    if (s.started_at) v.started_at = s.started_at;
    if (s.ended_at) v.ended_at = s.ended_at;
    if (s.error) v.error = s.error;
    if (mode === 'none' || s.result === null || i < offset) return v;
    if (next !== null) {
      v.result_omitted = true;
      return v;
    }
    const result = stepResult(parsedResult(s));
    const size = Buffer.byteLength(JSON.stringify(result));
    if (used > 0 && used + size > budget) {
      next = i;
      v.result_omitted = true;
      return v;
    }
    used += size;
    v.result = result;
    return v;
  });
  const data: Record<string, unknown> = {
    operation_id: op.id,
    state: op.state,
    state_sequence: op.state_sequence,
    ...(op.run_id ? { run_id: op.run_id } : {}),
    created_at: op.created_at,
    ...(op.ended_at ? { ended_at: op.ended_at } : {}),
    ...(op.terminal_event_id !== null ? { terminal_event_id: op.terminal_event_id } : {}),
    counts,
    steps: views,
  };
  const waiting = steps.find((s) => s.state === 'waiting_confirmation');
  if (waiting) data.waiting_step = waiting.step_id;
  if (mode !== 'none' && offset > 0) data.offset = offset;
  if (next !== null) data.next_offset = next;
  return data;
}

/** One line per step for the text block. */
function stepLines(steps: StepRow[]): string[] {
  return steps.map((s) => `  ${s.step_id} (${s.tool}): ${s.state}${s.execution_task_id ? ` ${s.execution_task_id}` : ''}${s.error && s.state !== 'succeeded' ? ` — ${s.error.split('\n', 1)[0]!.slice(0, 160)}` : ''}`);
}

/** Longest text of one step's result in the text block, bytes. */
const STEP_TEXT_MAX_BYTES = 4096;

/**
 * The step results a view carries, as text for clients that give the model only the text block
 * (fresh-user review): each step's own text (its content's text parts), at most
 * {@link STEP_TEXT_MAX_BYTES} per step and `OutputLimits.TEXT_BLOCK_MAX_BYTES` in all; a step cut
 * short or left out says where the whole result is.
 */
function resultTexts(steps: StepRow[], views: { id: string; result?: unknown }[], opId: string): string[] {
  const out: string[] = [];
  let used = 0;
  const left: string[] = [];
  for (const [i, s] of steps.entries()) {
    if (s.result === null || views[i]?.result === undefined) continue;
    const r = parsedResult(s);
    const text = r.content.flatMap((c) => (c.type === 'text' && 'text' in c ? [String(c.text)] : [])).join('\n').trimEnd();
    if (text === '') continue;
    if (used >= OutputLimits.TEXT_BLOCK_MAX_BYTES) {
      left.push(s.step_id);
      continue;
    }
    const room = Math.min(STEP_TEXT_MAX_BYTES, OutputLimits.TEXT_BLOCK_MAX_BYTES - used);
    const shown = utf8Prefix(text, room);
    used += Buffer.byteLength(shown);
    const cut = shown.length < text.length ? `\n[… cut: the whole result is structuredContent.data.steps[id=${s.step_id}].result]` : '';
    out.push(`--- ${s.step_id} (${s.tool}) ---\n${shown}${cut}`);
  }
  if (left.length > 0) out.push(`[results of ${left.join(', ')} are in structuredContent, or operation_manage(action="result", operation_id="${opId}")]`);
  return out;
}

/** The confirmation a waiting step asks for, in its own words (its result's first line). */
function confirmationText(s: StepRow): string {
  if (!s.result) return '';
  const r = parsedResult(s);
  const first = r.content.find((c) => c.type === 'text');
  return first && 'text' in first ? String(first.text).split('\n', 1)[0]!.slice(0, 300) : '';
}

/**
 * The §6.3 outcome of an operation view (issue 12): status from the operation's state, the data of
 * {@link operationData}, a short text (one line per step) and the continuations — wait while it
 * runs, confirm a waiting step after the user agreed, the next page of results.
 */
export function operationOutcome(type: string, op: OperationRow, steps: StepRow[], mode: ResultMode, offset = 0, extraHints: Record<string, unknown> = {}): ToolOutcome {
  const data = operationData(op, steps, mode, offset);
  const ctx = { remote_session_id: op.session_id, operation_id: op.id };
  const actions: ResultAction[] = [];
  const base = { remote_session_id: op.session_id, operation_id: op.id };
  if (op.state === 'running') {
    actions.push(action('operation_manage', { ...base, action: 'wait' }, 'wait for the operation to finish'));
    actions.push(action('operation_manage', { ...base, action: 'cancel' }, 'cancel it (running steps are stopped)'));
  }
  const waiting = steps.find((s) => s.state === 'waiting_confirmation');
  if (op.state === 'waiting_confirmation' && waiting) {
    const what = confirmationText(waiting);
    actions.push(action('operation_manage', { ...base, action: 'confirm' }, `only after the user agreed to step "${waiting.step_id}"${what ? `: ${what}` : ''}`));
    actions.push(action('operation_manage', { ...base, action: 'cancel' }, 'the user declined: cancel the operation'));
  }
  if (typeof data.next_offset === 'number') actions.push(action('operation_manage', { ...base, action: 'result', offset: data.next_offset }, 'the next page of step results'));
  const head =
    op.state === 'waiting_confirmation' && waiting
      ? `${op.id} waits for the user's confirmation of step "${waiting.step_id}": ${confirmationText(waiting)}`
      : `${op.id} ${op.state} (state_sequence ${op.state_sequence})`;
  const results = mode === 'none' ? [] : resultTexts(steps, data.steps as { id: string; result?: unknown }[], op.id);
  if (mode === 'none' && steps.some((s) => s.result !== null) && op.state !== 'running') {
    results.push(`[step results: operation_manage(action="result", operation_id="${op.id}")]`);
  }
  const text = [head, ...stepLines(steps), ...results].join('\n');
  return outcome(type, statusOf(op.state), data, text, { context: ctx, actions, hints: extraHints });
}
