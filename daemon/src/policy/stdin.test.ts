import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { KEY_SEQUENCES } from '@holdfast/shared/protocol';
import { evaluateStdin, type StdinInput } from './stdin.js';

/** Review finding 4: stdin type-ahead (`text="bob\ntouch /tmp/x\n"` ran `touch` unjudged). */
describe('evaluateStdin: one line per call (review finding 4)', () => {
  const rows: [StdinInput, 'allow' | 'deny'][] = [
    [{ text: 'bob\n' }, 'allow'],
    [{ text: 'bob\r' }, 'allow'],
    [{ text: 'y\r\n' }, 'allow'],
    [{ text: 'bob' }, 'allow'],
    [{ text: 'bob', keys: ['Enter'] }, 'allow'],
    [{ text: '', keys: ['Enter'] }, 'allow'],
    [{ keys: ['Down', 'Down', 'Enter'] }, 'allow'],
    [{ keys: ['Ctrl-C'] }, 'allow'],
    [{ text: 'partial', keys: ['Ctrl-D'] }, 'allow'],
    [{ keys: ['Esc'] }, 'allow'],
    [{ text: 'a\tb\n' }, 'allow'],
    [{ text: '名前\n' }, 'allow'],
    [{ text: 'bob\ntouch /tmp/x\n' }, 'deny'],
    [{ text: 'bob\ntouch /tmp/x' }, 'deny'],
    [{ text: 'bob\rtouch /tmp/x\r' }, 'deny'],
    [{ text: '\n\n' }, 'deny'],
    [{ text: 'bob\n', keys: ['Enter'] }, 'deny'],
    [{ text: 'bob\n', keys: ['Ctrl-C'] }, 'deny'],
    [{ keys: ['Enter', 'Enter'] }, 'deny'],
    [{ keys: ['Enter', 'Up'] }, 'deny'],
    [{ keys: ['Ctrl-C', 'Up', 'Enter'] }, 'deny'],
    [{ keys: ['Ctrl-D', 'Enter'] }, 'deny'],
    [{ keys: ['Ctrl-Z', 'Ctrl-C'] }, 'deny'],
    [{ text: 'x\u0000' }, 'deny'],
    [{ text: 'x\u0003' }, 'deny'],
    [{ text: 'x\u0015touch /x\n' }, 'deny'],
    [{ text: '\u001b[201~' }, 'deny'],
    [{ text: 'x\u007f' }, 'deny'],
    [{ keys: ['F13'] }, 'deny'],
  ];
  for (const [input, want] of rows) {
    it(`${JSON.stringify(input)} → ${want}`, () => {
      const v = evaluateStdin(input);
      assert.equal(v.decision, want, v.reason);
    });
  }
  it('a refusal says to send one line per call', () => {
    assert.match(evaluateStdin({ text: 'bob\ntouch /tmp/x\n' }).reason, /one line per stdin call/);
    assert.match(evaluateStdin({ text: 'x\u0003' }).reason, /named keys/);
  });
  it('property: what reaches the terminal holds at most one line end, and only at the very end', () => {
    const chunk = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('\n', '\r', '\r\n', '\t', '\u0003', '\u0004', '\u001b'));
    const keys = fc.array(fc.constantFrom(...Object.keys(KEY_SEQUENCES)), { maxLength: 4 });
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 5 }), keys, (parts, ks) => {
        const text = parts.join('');
        const v = evaluateStdin({ text, keys: ks });
        if (v.decision !== 'allow') return true;
        const typed = text + ks.map((k) => KEY_SEQUENCES[k]).join('');
        const body = typed.replace(/(\r\n|\r|\n)$/, '');
        // nothing that ends a line inside; no Ctrl-C/D/Z except as the last byte
        return !/[\r\n]/.test(body) && !/[\u0003\u0004\u001a]./s.test(typed);
      }),
      { numRuns: 1000 },
    );
  });
});
