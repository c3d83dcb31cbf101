import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HoldfastError } from '@holdfast/shared/errors';
import { planBatch } from './batch-plan.js';

const RS = 'rs_01J0000000000000000000000A';
const ALL = ['read', 'execute', 'edit', 'observe', 'operation_batch', 'session', 'workspace'];

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as HoldfastError).code + ': ' + (err as Error).message;
  }
  return 'no error';
}

describe('planBatch (issue 12)', () => {
  it('accepts a graph, fills in the session and digests the steps', () => {
    const p = planBatch(
      [
        { id: 'a', tool: 'read', arguments: { path: 'x' } },
        { id: 'b', tool: 'execute', arguments: { command: 'true' }, depends_on: ['a', 'a'] },
      ],
      RS,
      ALL,
    );
    assert.deepEqual(p.steps[1]!.depends_on, ['a']);
    assert.equal(p.steps[0]!.arguments.remote_session_id, RS);
    assert.match(p.digest, /^[0-9a-f]{64}$/);
  });

  it('refuses cycles, unknown dependencies, duplicate ids, unbatchable and unknown tools, bad arguments and other sessions', () => {
    assert.match(code(() => planBatch([{ id: 'a', tool: 'read', depends_on: ['b'] }, { id: 'b', tool: 'read', depends_on: ['a'] }], RS, ALL)), /BAD_REQUEST: .*cycle: (a → b → a|b → a → b)/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'read', depends_on: ['zz'] }], RS, ALL)), /BAD_REQUEST: .*"zz"/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'read' }, { id: 'a', tool: 'read' }], RS, ALL)), /used twice/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'operation_batch', arguments: { steps: [] } }], RS, ALL)), /cannot be a batch step/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'workspace' }], RS, ALL)), /cannot be a batch step/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'nope' }], RS, ALL)), /no tool "nope"/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'move_out' }], RS, ALL)), /TOOL_NOT_ALLOWED/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'execute', arguments: { yield_time_ms: 'x' } }], RS, ALL)), /step "a" \(execute\): yield_time_ms/);
    assert.match(code(() => planBatch([{ id: 'a', tool: 'read', arguments: { remote_session_id: 'rs_other' } }], RS, ALL)), /batch's session/);
    assert.match(code(() => planBatch([], RS, ALL)), /1 to 32 steps/);
  });
});
