import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { patternSet, redactBuffer, StreamRedactor, type PatternSet } from './redactor.js';

const set = (entries: Record<string, string>): PatternSet => patternSet(Object.entries(entries).map(([name, v]) => ({ name, value: Buffer.from(v) })));

/** Feeds `text` in the given chunk sizes and returns everything logged. */
function stream(r: StreamRedactor, text: string, sizes: number[]): string {
  const b = Buffer.from(text);
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < b.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length] ?? 1);
    out.push(r.push(b.subarray(at, at + n)));
    at += n;
  }
  out.push(r.flush());
  return Buffer.concat(out).toString();
}

describe('StreamRedactor (issue 12)', () => {
  it('replaces a value split one byte per chunk', () => {
    const s = set({ API_KEY: 'hunter2-secret' });
    const r = new StreamRedactor(() => s);
    assert.equal(stream(r, 'pre-hunter2-secret-post\r\n', [1]), 'pre-[secret:API_KEY]-post\r\n');
  });

  it('holds back only what could still be a value, and nothing without secrets', () => {
    const s = set({ K: 'abcdef' });
    const r = new StreamRedactor(() => s);
    assert.equal(r.push(Buffer.from('xx ab')).toString(), 'xx ');
    assert.equal(r.pending, 2);
    assert.equal(r.push(Buffer.from('z')).toString(), 'abz');
    const none = new StreamRedactor(() => patternSet([]));
    const chunk = Buffer.from('abc');
    assert.equal(none.push(chunk), chunk);
  });

  it('a partial value at the end of the stream is redacted when it is 3 bytes or more', () => {
    const s = set({ K: 'abcdef' });
    const r = new StreamRedactor(() => s);
    assert.equal(stream(r, 'tail abcd', [100]), 'tail [secret:K]');
    assert.equal(stream(new StreamRedactor(() => s), 'tail ab', [100]), 'tail ab');
  });

  it('redacts several secrets and the terminal form of a multi-line value', () => {
    const s = set({ A: 'alpha-1', B: 'line1\nline2' });
    assert.equal(redactBuffer(Buffer.from('alpha-1 and line1\r\nline2 and line1\nline2'), s).toString(), '[secret:A] and [secret:B] and [secret:B]');
  });

  it('no value survives any chunking (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 4, maxLength: 12, unit: fc.constantFrom('a', 'b', 'c', 'x') }),
        fc.array(fc.constantFrom('a', 'b', 'c', 'x', ' ', 'ab', 'abc'), { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }),
        (secret, noise, sizes) => {
          const text = `${noise.join('')}${secret}${noise.reverse().join('')}${secret}`;
          const s = set({ S: secret });
          const out = stream(new StreamRedactor(() => s), text, sizes);
          assert.equal(out.includes(secret), false, `${JSON.stringify(text)} → ${JSON.stringify(out)}`);
          // Streaming never differs from redacting the whole text at once.
          assert.equal(out, redactBuffer(Buffer.from(text), s).toString());
        },
      ),
    );
  });
});
