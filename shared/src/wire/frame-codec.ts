import { Packr, Unpackr } from 'msgpackr';
import { WireLimits } from '../constants.js';
import { HoldfastError } from '../errors.js';

/**
 * Frame codec (DESIGN §3): a frame is `u32 big-endian payload length | one msgpack value`.
 * msgpackr is used without records (`useRecords: false`) so every frame stands alone and a
 * reconnecting peer never depends on codec state from an earlier connection.
 */
const packr = new Packr({ useRecords: false, moreTypes: false, bundleStrings: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/** Bytes of the length prefix. */
export const FRAME_HEADER_BYTES = 4;

/**
 * Encodes one value as a frame.
 * @throws HoldfastError `FRAME_TOO_LARGE` when the payload exceeds `maxBytes`.
 */
export function encodeFrame(value: unknown, maxBytes: number = WireLimits.MAX_FRAME_BYTES): Buffer {
  const payload = packr.pack(value);
  if (payload.length > maxBytes) {
    throw new HoldfastError('FRAME_TOO_LARGE', `frame of ${payload.length} bytes exceeds the ${maxBytes}-byte limit; page the payload by offset`);
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  payload.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

/**
 * Incremental decoder over a chunk list: bytes may arrive split at any point or several frames
 * coalesced in one chunk. `push` returns every complete value in arrival order.
 *
 * After an error (`FRAME_TOO_LARGE` for a declared length over the limit, `BAD_FRAME` for bytes
 * that are not msgpack) the decoder is poisoned: the connection must be closed.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed = false;

  constructor(private readonly maxBytes: number = WireLimits.MAX_FRAME_BYTES) {}

  /** Bytes held while waiting for the rest of a frame. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** Adds a chunk and returns the values of all frames it completed. */
  push(chunk: Buffer): unknown[] {
    if (this.failed) throw new HoldfastError('BAD_FRAME', 'decoder already failed; close the connection');
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const out: unknown[] = [];
    for (;;) {
      if (this.buffered < FRAME_HEADER_BYTES) return out;
      const length = this.peekLength();
      if (length > this.maxBytes) {
        this.failed = true;
        throw new HoldfastError('FRAME_TOO_LARGE', `incoming frame declares ${length} bytes, over the ${this.maxBytes}-byte limit`);
      }
      if (this.buffered < FRAME_HEADER_BYTES + length) return out;
      const frame = this.take(FRAME_HEADER_BYTES + length);
      try {
        out.push(unpackr.unpack(frame.subarray(FRAME_HEADER_BYTES)));
      } catch (err) {
        this.failed = true;
        throw new HoldfastError('BAD_FRAME', `undecodable frame: ${(err as Error).message}`);
      }
    }
  }

  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= FRAME_HEADER_BYTES) return first.readUInt32BE(0);
    const head = this.concatPrefix(FRAME_HEADER_BYTES);
    return head.readUInt32BE(0);
  }

  private concatPrefix(n: number): Buffer {
    const parts: Buffer[] = [];
    let got = 0;
    for (const c of this.chunks) {
      parts.push(c);
      got += c.length;
      if (got >= n) break;
    }
    return Buffer.concat(parts, got).subarray(0, n);
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length === n) {
      this.chunks.shift();
      this.buffered -= n;
      return first;
    }
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      this.buffered -= n;
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let copied = 0;
    while (copied < n) {
      const c = this.chunks[0]!;
      const want = n - copied;
      if (c.length <= want) {
        c.copy(out, copied);
        copied += c.length;
        this.chunks.shift();
      } else {
        c.copy(out, copied, 0, want);
        this.chunks[0] = c.subarray(want);
        copied += want;
      }
    }
    this.buffered -= n;
    return out;
  }
}
