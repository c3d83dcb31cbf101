import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeFrame, FrameDecoder, FRAME_HEADER_BYTES } from './frame-codec.js';
import { HoldfastError } from '../errors.js';

const value = fc.oneof(
  fc.record({ k: fc.constant('req'), id: fc.nat(), m: fc.string(), p: fc.jsonValue() }),
  fc.record({ k: fc.constant('res'), id: fc.nat(), r: fc.uint8Array({ maxLength: 3000 }) }),
  fc.record({ k: fc.constant('evt'), ev: fc.string(), d: fc.dictionary(fc.string(), fc.string()) }),
);

/** Splits `buf` at the given cut points (sorted, deduplicated, within bounds). */
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

describe('frame codec', () => {
  it('decodes frames coalesced into one buffer and split at random points', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (values, cuts) => {
        // `__proto__` keys are renamed by the decoder on purpose (see the next test).
        fc.pre(!JSON.stringify(values).includes('"__proto__"'));
        const stream = Buffer.concat(values.map((v) => encodeFrame(v)));
        const dec = new FrameDecoder();
        const got: unknown[] = [];
        for (const piece of splitAt(stream, cuts)) got.push(...dec.push(piece));
        assert.equal(got.length, values.length);
        for (let i = 0; i < values.length; i++) {
          const want = values[i] as Record<string, unknown>;
          const have = got[i] as Record<string, unknown>;
          if (want.r instanceof Uint8Array) {
            assert.deepEqual(Buffer.from(have.r as Uint8Array), Buffer.from(want.r));
            assert.equal(have.id, want.id);
          } else {
            assert.deepEqual(JSON.parse(JSON.stringify(have)), JSON.parse(JSON.stringify(want)));
          }
        }
        assert.equal(dec.pendingBytes, 0);
      }),
      { numRuns: 300 },
    );
  });

  it('a __proto__ key in a frame never reaches an object prototype', () => {
    const dec = new FrameDecoder();
    const [v] = dec.push(encodeFrame(JSON.parse('{"k":"req","id":1,"m":"x","p":{"__proto__":{"polluted":true}}}'))) as [{ p: Record<string, unknown> }];
    assert.equal(Object.getPrototypeOf(v.p), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((v.p as { polluted?: unknown }).polluted, undefined);
  });

  it('byte-at-a-time delivery decodes the same values', () => {
    const frames = [encodeFrame({ k: 'ping', t: 1 }), encodeFrame({ k: 'pong', t: 2 })];
    const stream = Buffer.concat(frames);
    const dec = new FrameDecoder();
    const got: unknown[] = [];
    for (const b of stream) got.push(...dec.push(Buffer.from([b])));
    assert.deepEqual(got, [{ k: 'ping', t: 1 }, { k: 'pong', t: 2 }]);
  });

  it('refuses a declared length over the limit with FRAME_TOO_LARGE and stays failed', () => {
    const dec = new FrameDecoder(1024);
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    header.writeUInt32BE(1025, 0);
    assert.throws(() => dec.push(header), (e: unknown) => e instanceof HoldfastError && e.code === 'FRAME_TOO_LARGE');
    assert.throws(() => dec.push(Buffer.from([1])), (e: unknown) => e instanceof HoldfastError && e.code === 'BAD_FRAME');
  });

  it('refuses to encode a value over the limit', () => {
    assert.throws(() => encodeFrame({ big: Buffer.alloc(2048) }, 1024), (e: unknown) => e instanceof HoldfastError && e.code === 'FRAME_TOO_LARGE');
  });

  it('refuses garbage payloads with BAD_FRAME', () => {
    const dec = new FrameDecoder();
    const junk = Buffer.from([0xc1, 0xc1, 0xc1]); // 0xc1 is never used in msgpack
    const header = Buffer.alloc(4);
    header.writeUInt32BE(junk.length, 0);
    assert.throws(() => dec.push(Buffer.concat([header, junk])), (e: unknown) => e instanceof HoldfastError && e.code === 'BAD_FRAME');
  });
});
