import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { patternSet, redactBuffer, stripEscapes, StreamRedactor, type PatternSet } from './redactor.js';

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
  it('redacts a value with SGR codes and cursor moves between its bytes, split across chunks', () => {
    const s = set({ TOKEN: 'hunter2-secret' });
    const text = 'pre \x1b[1mhun\x1b[31mter\x1b[0m2-\x1b[2Csec\x1b(Bret\x1b[0m post';
    for (const sizes of [[100], [1], [2, 3], [5]]) {
      assert.equal(stream(new StreamRedactor(() => s), text, sizes), 'pre \x1b[1m[secret:TOKEN]\x1b[0m post', `sizes ${sizes}`);
    }
    // Escape sequences before the first byte are not part of the value, nor a complete sequence after it.
    assert.equal(redactBuffer(Buffer.from('\x1b[32mhunter2-secret\x1b[0m'), s).toString(), '\x1b[32m[secret:TOKEN]\x1b[0m');
  });

  it('redacts the JSON-escaped forms of a value (\\", \\\\, \\u00xx, non-ASCII)', () => {
    const s = set({ PW: 'p"a\\ss\x01wö<rd' });
    const forms = [
      JSON.stringify('p"a\\ss\x01wö<rd').slice(1, -1), // p\"a\\ss\u0001wö<rd
      'p\\"a\\\\ss\\u0001w\\u00f6<rd', // Python json.dumps (ensure_ascii)
      'p\\"a\\\\ss\\u0001w\\u00F6\\u003Crd', // upper-case hex, HTML-safe (Go)
    ];
    for (const f of forms) {
      const text = `{"password":"${f}"}`;
      assert.equal(stream(new StreamRedactor(() => s), text, [1]), '{"password":"[secret:PW]"}', f);
      assert.equal(redactBuffer(Buffer.from(text), s).toString(), '{"password":"[secret:PW]"}', f);
    }
  });

  it('the whole-buffer redactor treats a started value at the end like flush does', () => {
    const s = set({ K: 'abcdef' });
    assert.equal(redactBuffer(Buffer.from('tail abcd'), s).toString(), 'tail [secret:K]');
    assert.equal(redactBuffer(Buffer.from('tail ab'), s).toString(), 'tail ab');
    assert.equal(redactBuffer(Buffer.from('tail ab\x1b[1mcd'), s).toString(), 'tail [secret:K]');
  });

  it('a shorter value that starts a longer one waits for the longer one (no part of it leaks)', () => {
    const s = set({ SHORT: 'abcd', LONG: 'abcdefgh' });
    assert.equal(stream(new StreamRedactor(() => s), 'x abcdefgh y', [1]), 'x [secret:LONG] y');
    assert.equal(stream(new StreamRedactor(() => s), 'x abcdxy', [1]), 'x [secret:SHORT]xy');
  });

  it('holds back at most a bounded amount for an unfinished escape sequence', () => {
    const s = set({ K: 'abcdef' });
    const r = new StreamRedactor(() => s);
    assert.equal(r.push(Buffer.from('ab\x1b[' + '1;'.repeat(100))).length > 0, true);
    assert.ok(r.pending <= 2 + 64, `pending ${r.pending}`);
  });

  it('escape-aware: stream == buffer and the value never appears, however split (property)', () => {
    const escapes = ['\x1b[0m', '\x1b[1;31m', '\x1b[2C', '\x1b[?25l', '\x1b(B', '\x1b]0;t\x07', '\x1b[38;5;208m'];
    const jsonify = (v: string): string => JSON.stringify(v).slice(1, -1);
    fc.assert(
      fc.property(
        fc.string({ minLength: 4, maxLength: 12, unit: fc.constantFrom('a', 'b', 'c', 'x', '"', '\\', '\x02', '[', '1', ';', 'm') }),
        fc.array(fc.constantFrom('a', 'b', 'c', 'x', ' ', 'ab', '1;', 'm', '\r\n', '\x1b', '\x1b[', ...escapes), { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...escapes)), { maxLength: 4 }),
        fc.boolean(),
        (secret, noise, sizes, cuts, json) => {
          // The value as printed: JSON-escaped or not, with escape sequences between some of its bytes.
          const printed = json ? jsonify(secret) : secret;
          let decorated = printed;
          for (const [at, e] of cuts) {
            const i = 1 + (at % Math.max(1, decorated.length - 1));
            if (decorated[i - 1] === '\x1b' || decorated[i - 1] === '\\') continue;
            decorated = decorated.slice(0, i) + e + decorated.slice(i);
          }
          const text = `${noise.join('')}${decorated} ${noise.reverse().join('')}${printed}`;
          const s = set({ S: secret });
          const out = stream(new StreamRedactor(() => s), text, sizes);
          // Streaming never differs from redacting the whole text at once.
          assert.equal(out, redactBuffer(Buffer.from(text), s).toString());
          for (const shown of [out, stripEscapes(Buffer.from(out)).toString()]) {
            assert.equal(shown.includes(secret) || shown.includes(printed), false, `${JSON.stringify(text)} → ${JSON.stringify(out)}`);
          }
        },
      ),
      { numRuns: Number(process.env.HF_FC_RUNS ?? 500) },
    );
  });
});
