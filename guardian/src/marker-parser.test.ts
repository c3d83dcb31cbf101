import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeMarker, MarkerParser, type MarkerKind, type ParsedItem } from './marker-parser.js';

const NONCE = '0123456789abcdef';

/** Runs chunks through a parser; returns the clean bytes and the markers with clean offsets. */
function parseAll(chunks: Buffer[], nonce = NONCE): { clean: Buffer; markers: Array<{ kind: MarkerKind; arg: string | null; offset: number }> } {
  const p = new MarkerParser(nonce);
  const parts: Buffer[] = [];
  const markers: Array<{ kind: MarkerKind; arg: string | null; offset: number }> = [];
  let offset = 0;
  const take = (items: ParsedItem[]): void => {
    for (const it of items) {
      if ('data' in it) {
        parts.push(Buffer.from(it.data));
        offset += it.data.length;
      } else markers.push({ kind: it.marker, arg: it.arg, offset });
    }
  };
  for (const c of chunks) take(p.push(c));
  const rest = p.flush();
  parts.push(rest);
  return { clean: Buffer.concat(parts), markers };
}

/** Splits `buf` at the given cut points. */
function splitAt(buf: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(buf.subarray(prev, p));
    prev = p;
  }
  out.push(buf.subarray(prev));
  return out;
}

describe('marker parser', () => {
  it('strips our markers and reports their clean offsets', () => {
    const stream = Buffer.concat([
      Buffer.from('prompt$ echo hi\r\n'),
      encodeMarker(NONCE, 'C'),
      Buffer.from('hi\r\n'),
      encodeMarker(NONCE, 'D', '0'),
      encodeMarker(NONCE, 'A'),
      Buffer.from('$ '),
      encodeMarker(NONCE, 'B'),
    ]);
    const { clean, markers } = parseAll([stream]);
    assert.equal(clean.toString(), 'prompt$ echo hi\r\nhi\r\n$ ');
    assert.deepEqual(markers, [
      { kind: 'C', arg: null, offset: 17 },
      { kind: 'D', arg: '0', offset: 21 },
      { kind: 'A', arg: null, offset: 21 },
      { kind: 'B', arg: null, offset: 23 },
    ]);
  });

  it('accepts ESC \\ as terminator', () => {
    const { clean, markers } = parseAll([Buffer.from(`x\x1b]633;HF${NONCE};D;130\x1b\\y`)]);
    assert.equal(clean.toString(), 'xy');
    assert.deepEqual(markers, [{ kind: 'D', arg: '130', offset: 1 }]);
  });

  it('leaves markers with another nonce and other OSC 633 sequences alone', () => {
    const foreign = `a\x1b]633;HFdeadbeefdeadbeef;D;0\x07b\x1b]633;A\x07c`;
    const { clean, markers } = parseAll([Buffer.from(foreign)]);
    assert.equal(clean.toString(), foreign);
    assert.equal(markers.length, 0);
  });

  it('passes on a prefix that never gets a terminator', () => {
    const s = Buffer.concat([Buffer.from(`\x1b]633;HF${NONCE};`), Buffer.alloc(100, 0x41)]);
    const { clean, markers } = parseAll([s]);
    assert.deepEqual(clean, s);
    assert.equal(markers.length, 0);
  });

  it('returns a held-back partial prefix on flush', () => {
    const s = Buffer.from(`tail\x1b]633;HF${NONCE.slice(0, 5)}`);
    const { clean } = parseAll([s]);
    assert.deepEqual(clean, s);
  });

  it('gives the same result for every way of splitting the stream (property)', () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 40 }).map((a) => ({ bytes: Buffer.from(a), marker: null as null | { kind: MarkerKind; arg: string | null } })),
      fc.constantFrom<MarkerKind>('A', 'B', 'C').map((kind) => ({ bytes: encodeMarker(NONCE, kind), marker: { kind, arg: null as string | null } })),
      fc.integer({ min: 0, max: 255 }).map((code) => ({ bytes: encodeMarker(NONCE, 'D', String(code)), marker: { kind: 'D' as MarkerKind, arg: String(code) as string | null } })),
      fc.constant({ bytes: Buffer.from(`\x1b]633;HF${NONCE.slice(0, 7)}`), marker: null }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 25 }), fc.array(fc.nat(), { maxLength: 12 }), (pieces, cuts) => {
        // Random bytes may themselves complete a truncated prefix into a marker; the reference
        // is therefore the parse of the whole stream in one chunk, and the property is that
        // chunking never changes it.
        const stream = Buffer.concat(pieces.map((p) => p.bytes));
        const whole = parseAll([stream]);
        const split = parseAll(splitAt(stream, cuts));
        assert.deepEqual(split.clean, whole.clean);
        assert.deepEqual(split.markers, whole.markers);
        // Every marker we encoded is found (none is lost to a split).
        const expected = pieces.filter((p) => p.marker).length;
        assert.ok(whole.markers.length >= expected);
        assert.equal(whole.clean.includes(Buffer.from(`\x1b]633;HF${NONCE};`)), false);
      }),
      { numRuns: 500 },
    );
  });

  it('handles a byte-by-byte stream', () => {
    const stream = Buffer.concat([Buffer.from('a'), encodeMarker(NONCE, 'C'), Buffer.from('b'), encodeMarker(NONCE, 'D', '3'), Buffer.from('c')]);
    const { clean, markers } = parseAll([...stream].map((b) => Buffer.from([b])));
    assert.equal(clean.toString(), 'abc');
    assert.deepEqual(markers, [
      { kind: 'C', arg: null, offset: 1 },
      { kind: 'D', arg: '3', offset: 2 },
    ]);
  });
});
