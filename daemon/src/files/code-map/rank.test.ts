import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pickSymbols, rankFiles } from './rank.js';
import type { CodeSymbol } from './types.js';

const sym = (name: string, line: number, container: string | null = null): CodeSymbol => ({ kind: 'function', name, line, end_line: line, signature: name, container });

describe('ranked map (issue 17)', () => {
  it('the file others reference ranks first; ranks sum to 1', () => {
    const { ranks, usedBy } = rankFiles([
      { path: 'a.ts', defs: [sym('useHelper', 1)], refs: [['formatName', 2]] },
      { path: 'b.ts', defs: [], refs: [['formatName', 1]] },
      { path: 'util.ts', defs: [sym('formatName', 1), sym('unused', 5)], refs: [] },
      { path: 'lonely.ts', defs: [sym('alone', 1)], refs: [] },
    ]);
    assert.equal(ranks.indexOf(Math.max(...ranks)), 2);
    assert.ok(Math.abs(ranks.reduce((s, x) => s + x, 0) - 1) < 1e-9);
    assert.equal(usedBy[2]!.get('formatName'), 2);
  });

  it('picks the most used symbols first, top-level before members on ties', () => {
    const defs = [sym('a', 1), sym('b', 2, 'A'), sym('c', 3), sym('d', 4)];
    const picked = pickSymbols(defs, new Map([['d', 3]]), 3).map((s) => s.name);
    assert.deepEqual(picked, ['d', 'a', 'c']);
  });
});
