import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateCommand } from './commands.js';
import { ansiC } from './shell-syntax.js';
import { displaySafe, findUnsafeCharacter } from './text-safety.js';
import { confirmationSummary } from '../execution/policy-outcome.js';

/** Finding 1 of the security review: NUL and other control characters (docs/command-policy.md "Always refused"). */
const RULES = { default: 'allow' as const, deny: ['rm -rf /tmp/victim'], confirm: [], allow: [] };

describe('control characters in a command are refused (review finding 1)', () => {
  const refused: [string, string][] = [
    ['rm -rf /tmp/victim\u0000x', 'U+0000 NUL'],
    ['ls\u0000', 'U+0000 NUL'],
    ['echo a\rrm -rf /', 'U+000D CR'],
    ['sleep 1\u0003', 'U+0003 ETX (Ctrl-C)'],
    ['echo safe\u0015rm -rf /tmp/victim', 'U+0015 NAK (Ctrl-U)'],
    ['cat\u0004', 'U+0004 EOT (Ctrl-D)'],
    ['echo \u001b[201~', 'U+001B ESC'],
    ['ls\u007f\u007fm -rf /', 'U+007F DEL'],
    ['echo \u0008x', 'U+0008 BS'],
    ['echo \u000b', 'U+000B VT'],
    ['echo \u000c', 'U+000C FF'],
    ['echo \u009b31m', 'U+009B (C1 control)'],
    ['echo \u202egnp.exe', 'U+202E (bidirectional control)'],
    ['echo \u2066x\u2069', 'U+2066 (bidirectional control)'],
  ];
  for (const [command, name] of refused) {
    it(`${JSON.stringify(command)} is refused (${name})`, () => {
      const v = evaluateCommand({ command }, RULES);
      assert.equal(v.decision, 'deny', v.reason);
      assert.equal(v.refusals[0]?.kind, 'control_character');
      assert.ok(v.refusals[0]!.message.includes(name), v.refusals[0]!.message);
    });
  }
  it('tab and newline are ordinary whitespace', () => {
    assert.equal(evaluateCommand({ command: 'echo a\tb\nls -la' }, RULES).decision, 'allow');
  });
  it('non-ASCII text is fine', () => {
    assert.equal(evaluateCommand({ command: "printf '%s' 名前 café" }, RULES).decision, 'allow');
  });
  it('a NUL inside $\'…\' ends the string, as in bash: the rule sees what bash runs', () => {
    assert.equal(ansiC('/tmp/victim\\x00x'), '/tmp/victim');
    assert.equal(ansiC('a\\0b'), 'a');
    assert.equal(ansiC('p\\c@q'), 'p');
    assert.equal(evaluateCommand({ command: "rm -rf $'/tmp/victim\\x00x'" }, RULES).decision, 'deny');
    assert.equal(evaluateCommand({ command: "rm -rf $'/tmp/victim\\0'" }, RULES).decision, 'deny');
  });
  it('argv: an element with NUL is refused; other bytes are passed exactly', () => {
    const v = evaluateCommand({ argv: ['rm', '-rf', '/tmp/victim\u0000x'] }, RULES);
    assert.equal(v.decision, 'deny');
    assert.equal(v.refusals[0]?.kind, 'control_character');
    assert.equal(evaluateCommand({ argv: ['printf', '\u001b[1m%s\n', 'x'] }, RULES).decision, 'allow', 'argv reaches no terminal');
  });
  it('property: any refused character anywhere refuses the whole command', () => {
    const bad = fc.constantFrom(...'\u0000\u0001\u0003\u0004\u0008\u000b\u000c\u000d\u0015\u001a\u001b\u007f\u0085\u009b\u202a\u202e\u2066\u2069'.split(''));
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), bad, fc.string({ maxLength: 30 }), (a, c, b) => {
        const v = evaluateCommand({ command: `${a}${c}${b}` }, RULES);
        return v.decision === 'deny' && v.refusals.some((r) => r.kind === 'control_character');
      }),
      { numRuns: 300 },
    );
  });
  it('findUnsafeCharacter names the first one and its index', () => {
    assert.deepEqual(findUnsafeCharacter('ab\u0003c\u0000'), { index: 2, code: 3, name: 'U+0003 ETX (Ctrl-C)' });
    assert.equal(findUnsafeCharacter('a\tb\nc'), null);
    assert.equal(findUnsafeCharacter('x\ry', '\r'), null);
  });
});

describe('text shown to a user in a summary (displaySafe)', () => {
  it('escapes line breaks, tabs, C0/C1 controls, DEL and bidi controls; leaves other text alone', () => {
    assert.equal(displaySafe('plain — ünïcode 名前'), 'plain — ünïcode 名前');
    assert.equal(displaySafe('a\nb\rc\td'), 'a\\nb\\rc\\td');
    assert.equal(displaySafe('x\u001b[2Ky\u007f\u0085\u202Ez\u2066'), 'x\\u001B[2Ky\\u007F\\u0085\\u202Ez\\u2066');
  });
  it('property: the result is one line with no character findUnsafeCharacter refuses', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (t) => {
        const d = displaySafe(t);
        return !d.includes('\n') && !d.includes('\t') && findUnsafeCharacter(d) === null;
      }),
    );
  });
  it('a confirmation summary shows an agent-chosen purpose and folder through it', () => {
    const s = confirmationSummary({ command: 'git push', argv: null, taskName: null, cwd: '/tmp/a\u202Eb', purpose: 'ship it\nRun ls (asked by nothing)', background: false, env: null }, 'confirm: git push');
    assert.equal(s, 'Run git push in /tmp/a\\u202Eb — purpose: ship it\\nRun ls (asked by nothing) (asked by confirm: git push)');
  });
});
