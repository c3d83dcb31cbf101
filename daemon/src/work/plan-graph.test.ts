import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HoldfastError } from '@holdfast/shared/errors';
import { findCycle, resolveNewTasks } from './plan-graph.js';

let n = 0;
const mint = (): string => `pt_${String(++n).padStart(26, '0')}`;
const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof HoldfastError ? err.code : 'THREW';
  }
};

describe('plan dependency graph (issue 11)', () => {
  it('resolves local ids to plan task ids in request order', () => {
    const r = resolveNewTasks([{ local_id: 'a' }, { local_id: 'b', depends_on: ['a'] }, { local_id: 'c', depends_on: ['a', 'b'] }], mint);
    assert.deepEqual(r.deps, [[], [r.ids.get('a')], [r.ids.get('a'), r.ids.get('b')]]);
  });

  it('refuses duplicates, unknown ids, self-dependencies and cycles', () => {
    assert.equal(code(() => resolveNewTasks([{ local_id: 'a' }, { local_id: 'a' }], mint)), 'PLAN_INVALID');
    assert.equal(code(() => resolveNewTasks([{ local_id: 'a', depends_on: ['zz'] }], mint)), 'PLAN_INVALID');
    assert.equal(code(() => resolveNewTasks([{ local_id: 'a', depends_on: ['a'] }], mint)), 'PLAN_INVALID');
    assert.equal(code(() => resolveNewTasks([{ local_id: 'a', depends_on: ['c'] }, { local_id: 'b', depends_on: ['a'] }, { local_id: 'c', depends_on: ['b'] }], mint)), 'PLAN_INVALID');
  });

  it('replan additions may depend on existing tasks, never on unknown ones', () => {
    const r = resolveNewTasks([{ local_id: 'x', depends_on: ['pt_existing'] }], mint, new Set(['pt_existing']));
    assert.deepEqual(r.deps, [['pt_existing']]);
    assert.equal(code(() => resolveNewTasks([{ local_id: 'x', depends_on: ['pt_other'] }], mint, new Set(['pt_existing']))), 'PLAN_INVALID');
  });

  it('names the cycle it finds, and handles long chains without recursion', () => {
    const edges: Record<number, number[]> = { 0: [1], 1: [2], 2: [0], 3: [] };
    assert.deepEqual(findCycle(['a', 'b', 'c', 'd'], (i) => edges[i]!), ['a', 'b', 'c', 'a']);
    const long = 50_000;
    assert.equal(findCycle(Array.from({ length: long }, (_, i) => `t${i}`), (i) => (i + 1 < long ? [i + 1] : [])), null);
  });
});
