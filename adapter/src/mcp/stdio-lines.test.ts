import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StdioLineLimiter, TopLevelIdScanner, type OversizeLine } from './stdio-lines.js';

const idOf = (text: string, pieces = 1): string | number | null => {
  const s = new TopLevelIdScanner();
  const b = Buffer.from(text);
  const step = Math.ceil(b.length / pieces);
  for (let i = 0; i < b.length; i += step) s.feed(b.subarray(i, i + step));
  return s.id();
};

describe('stdio line limit (oversize messages get -32600)', () => {
  it('recovers the top-level id wherever it is, never one nested in params', () => {
    assert.equal(idOf('{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"b"}}'), 7);
    assert.equal(idOf('{"jsonrpc":"2.0","method":"x","params":{"id":1,"s":"\\"id\\":2"},"id":"late \\"one\\""}', 7), 'late "one"');
    assert.equal(idOf('{"method":"x","params":{"id":5}}'), null, 'a nested id is not the request id');
    assert.equal(idOf('[{"id":1}]'), null, 'a batch has no single id');
    assert.equal(idOf('{"id":{"x":1},"method":"x"}'), null, 'an object is not an id');
    assert.equal(idOf('{"id" : -3 , "method":"x"}'), -3);
    assert.equal(idOf('garbage'), null);
  });

  it('drops a line over the limit without buffering it, reports it, and passes the next lines', async () => {
    const seen: OversizeLine[] = [];
    const t = new StdioLineLimiter(64, (l) => seen.push(l));
    const out: string[] = [];
    t.on('data', (b: Buffer) => out.push(b.toString()));
    const big = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"pad":"${'A'.repeat(500)}"}}`;
    t.write('{"id":1}\n{"id":');
    t.write('2}\n');
    for (let i = 0; i < big.length; i += 50) t.write(big.slice(i, i + 50));
    t.write('\n{"id":3}\n');
    t.end();
    await new Promise((r) => t.on('end', r));
    assert.deepEqual(out, ['{"id":1}\n', '{"id":2}\n', '{"id":3}\n']);
    assert.deepEqual(seen, [{ id: 'big', bytes: big.length }]);
  });
});
