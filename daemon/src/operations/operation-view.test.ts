import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OperationRow, StepRow } from '../store/operations-repo.js';
import { operationData, operationOutcome, statusOf } from './operation-view.js';

const op: OperationRow = {
  id: 'op_01J0000000000000000000000A',
  session_id: 'rs_01J0000000000000000000000A',
  workspace: 'ws',
  principal: 'p',
  run_id: 'r',
  steps_sha256: 'x',
  state: 'completed_with_issues',
  state_sequence: 9,
  terminal_event_id: 42,
  call_context: '{}',
  created_at: 1,
  updated_at: 2,
  ended_at: 3,
  results_expired_at: null,
};

/** A step whose stored result carries `bytes` of output. */
function step(i: number, bytes: number, state: StepRow['state'] = 'succeeded', text = 'ok'): StepRow {
  const envelope = { status: 'succeeded', type: 'read.file', context: {}, data: { content: 'x'.repeat(bytes) }, error: null, hints: {}, actions: [] };
  return {
    operation_id: op.id,
    step_id: `s${i}`,
    position: i,
    tool: 'read',
    arguments: '{}',
    depends_on: i > 0 ? JSON.stringify([`s${i - 1}`]) : '[]',
    state,
    state_sequence: i + 2,
    idempotency_key: null,
    execution_task_id: null,
    started_at: 10,
    ended_at: 11,
    result: JSON.stringify({ content: [{ type: 'text', text }], structuredContent: envelope, isError: false }),
    error: null,
  };
}

describe('operation views (issue 12)', () => {
  it('status carries no results; result pages them within the byte budget', () => {
    const steps = [step(0, 30_000), step(1, 30_000), step(2, 30_000)];
    const status = operationData(op, steps, 'none') as { steps: { result?: unknown }[]; terminal_event_id: number; counts: Record<string, number> };
    assert.ok(status.steps.every((s) => s.result === undefined));
    assert.equal(status.terminal_event_id, 42);
    assert.deepEqual(status.counts, { succeeded: 3 });
    const first = operationData(op, steps, 'page', 0, 64 * 1024) as { steps: { result?: unknown; result_omitted?: boolean }[]; next_offset?: number };
    assert.ok(first.steps[0]!.result && first.steps[1]!.result);
    assert.equal(first.steps[2]!.result_omitted, true);
    assert.equal(first.next_offset, 2);
    const second = operationData(op, steps, 'page', 2, 64 * 1024) as { steps: { result?: unknown }[]; next_offset?: number; offset: number };
    assert.ok(second.steps[2]!.result && second.steps[0]!.result === undefined);
    assert.equal(second.next_offset, undefined);
    assert.equal(second.offset, 2);
    // One result larger than a page is still returned (a page is never empty).
    const big = operationData(op, [step(0, 100_000)], 'page', 0, 1024) as { steps: { result?: unknown }[] };
    assert.ok(big.steps[0]!.result);
  });

  it('maps operation states to envelope statuses and offers the next page', () => {
    assert.equal(statusOf('running'), 'accepted');
    assert.equal(statusOf('cancelled'), 'interrupted');
    assert.equal(statusOf('waiting_confirmation'), 'waiting_confirmation');
    const o = operationOutcome('operation.result', op, [step(0, 40_000), step(1, 40_000)], 'page');
    assert.equal(o.envelope.status, 'completed_with_issues');
    assert.deepEqual(o.envelope.actions.map((a) => [a.tool, a.arguments.action, a.arguments.offset]), [['operation_manage', 'result', 1]]);
  });

  it('puts the text of each step in the text block (capped per step and in all), and says where the rest is', () => {
    const o = operationOutcome('operation.batch', op, [step(0, 10, 'succeeded', 'alpha\nbeta'), step(1, 10, 'failed', 'é'.repeat(5000)), step(2, 10)], 'expanded');
    assert.match(o.text, /--- s0 \(read\) ---\nalpha\nbeta/);
    assert.match(o.text, /--- s1 \(read\) ---\né+\n\[… cut: the whole result is structuredContent\.data\.steps\[id=s1\]\.result\]/);
    assert.ok(!o.text.includes('\ufffd'), 'cut between whole characters');
    assert.match(o.text, /--- s2 \(read\) ---\nok/);
    const many = operationOutcome('operation.batch', op, Array.from({ length: 8 }, (_, i) => step(i, 10, 'succeeded', 'z'.repeat(5000))), 'expanded');
    assert.ok(Buffer.byteLength(many.text) < 17 * 1024, `${Buffer.byteLength(many.text)} bytes`);
    assert.match(many.text, /\[results of s4, s5, s6, s7 are in structuredContent, or operation_manage\(action="result", operation_id="op_/);
    const status = operationOutcome('operation.status', op, [step(0, 10, 'succeeded', 'alpha')], 'none');
    assert.doesNotMatch(status.text, /alpha/);
    assert.match(status.text, /\[step results: operation_manage\(action="result"/);
  });
});
