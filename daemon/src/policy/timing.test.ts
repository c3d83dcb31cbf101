import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_COMMAND_RULES } from '@holdfast/shared/config';
import { evaluateCommand } from './commands.js';

/**
 * The policy is on the hot path of every `execute` (issue 5). Prints the warm p50/p99 of
 * `evaluateCommand` with the generated rules for `true`, a typical line and a 20-line script
 * (`node --test daemon/dist/policy/timing.test.js`); fails only on a gross regression.
 */
const RULES = { default: 'allow' as const, deny: [...DEFAULT_COMMAND_RULES.deny], confirm: [...DEFAULT_COMMAND_RULES.confirm], allow: [] };
const TYPICAL = 'cd daemon && npm run build 2>&1 | tail -20 && git status --short';
const SCRIPT = Array.from({ length: 20 }, (_, i) =>
  ['echo "step ' + i + '"', 'ls -la src/', "grep -rn 'TODO' src | head -5", 'git diff --stat', 'npm test -- --grep x', 'if [ -f x ]; then cat x; fi', 'for f in a b c; do echo "$f"; done', 'export NODE_ENV=test', "sed -i 's/a/b/' f.txt", 'rm -rf build/tmp'][i % 10],
).join('\n');

function measure(command: string, runs = 2000): { p50: number; p99: number } {
  for (let i = 0; i < 300; i++) evaluateCommand({ command }, RULES);
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = process.hrtime.bigint();
    evaluateCommand({ command }, RULES);
    t.push(Number(process.hrtime.bigint() - s) / 1000);
  }
  t.sort((a, b) => a - b);
  return { p50: t[Math.floor(runs / 2)]!, p99: t[Math.floor(runs * 0.99)]! };
}

describe('command policy: warm evaluation time', () => {
  for (const [name, command, budgetUs] of [
    ['true', 'true', 1000],
    ['a typical line', TYPICAL, 2000],
    ['a 20-line script', SCRIPT, 10_000],
  ] as const) {
    it(`${name}: p50 well under ${budgetUs} µs`, (t) => {
      const { p50, p99 } = measure(command);
      t.diagnostic(`${name}: p50 ${p50.toFixed(1)} µs, p99 ${p99.toFixed(1)} µs`);
      assert.ok(p50 < budgetUs, `p50 ${p50} µs`);
    });
  }
});
