import { EventEmitter } from 'node:events';
import type { Rect, Size } from '@holdfast/shared/protocol';

/** Little-endian words: byte 3 (alpha) is the high byte. */
const ALPHA_MASK = 0xff000000;
const OPAQUE_BLACK = 0xff000000;

/** One completed RFB FramebufferUpdate: which rectangles changed, as of when. */
export interface FrameUpdate {
  /** Increments with every completed update (the `frame_id` of observations). */
  frameId: number;
  rects: Rect[];
  /** Epoch ms when the update was complete. */
  at: number;
}

/**
 * The desktop's framebuffer model (issue 15; the panel of issue 16 reads the same object): an
 * RGBA buffer (4 bytes per pixel, R G B and an alpha that is always 255, row-major, no padding —
 * image libraries premultiply alpha when scaling, so it must never be 0), its size, the
 * id and time of the last completed update, and an update stream:
 *
 * - `frame` ({@link FrameUpdate}) after every completed update, with the changed rectangles;
 * - `resize` ({@link Size}) when the size changed (the content is black until the next update).
 *
 * Decoders write with {@link putRows}, {@link fill}, {@link copyRect} and {@link pixels}, then call
 * {@link commit}. Readers take consistent copies with {@link crop}.
 */
export class Framebuffer extends EventEmitter<{ frame: [FrameUpdate]; resize: [Size] }> {
  width = 0;
  height = 0;
  data: Buffer = Buffer.alloc(0);
  private words = new Uint32Array(0);
  frameId = 0;
  /** When the last update completed (0 before the first), epoch ms. */
  lastUpdateAt = 0;

  /** Reallocates for a new size (contents cleared) and emits `resize` when it changed. */
  resize(width: number, height: number): void {
    if (width === this.width && height === this.height && this.data.length > 0) return;
    this.width = width;
    this.height = height;
    const ab = new ArrayBuffer(width * height * 4);
    this.words = new Uint32Array(ab).fill(OPAQUE_BLACK);
    this.data = Buffer.from(ab);
    this.emit('resize', { width, height });
  }

  /** Writes `h` rows of `w` pixels (R G B, any 4th byte) from `src` (row stride `w * 4`) at (x, y). */
  putRows(x: number, y: number, w: number, h: number, src: Buffer, srcOffset = 0): void {
    this.check(x, y, w, h);
    const row = w * 4;
    const words = this.words;
    for (let r = 0; r < h; r++) {
      const start = (y + r) * this.width + x;
      src.copy(this.data, start * 4, srcOffset + r * row, srcOffset + (r + 1) * row);
      for (let i = start, end = start + w; i < end; i++) words[i] = (words[i]! | ALPHA_MASK) >>> 0;
    }
  }

  /** Fills a rectangle with one colour. */
  fill(x: number, y: number, w: number, h: number, r: number, g: number, b: number): void {
    this.check(x, y, w, h);
    const d = this.data;
    for (let yy = y; yy < y + h; yy++) {
      let o = (yy * this.width + x) * 4;
      for (let i = 0; i < w; i++, o += 4) {
        d[o] = r;
        d[o + 1] = g;
        d[o + 2] = b;
        d[o + 3] = 255;
      }
    }
  }

  /** RFB CopyRect: copies a w×h block from (sx, sy) to (x, y) (overlap-safe). */
  copyRect(sx: number, sy: number, x: number, y: number, w: number, h: number): void {
    this.check(sx, sy, w, h);
    this.check(x, y, w, h);
    const row = w * 4;
    const block = Buffer.allocUnsafe(row * h);
    for (let r = 0; r < h; r++) this.data.copy(block, r * row, ((sy + r) * this.width + sx) * 4, ((sy + r) * this.width + sx) * 4 + row);
    this.putRows(x, y, w, h, block);
  }

  /** Marks an update complete: bumps the frame id and emits `frame`. */
  commit(rects: Rect[]): FrameUpdate {
    this.frameId += 1;
    this.lastUpdateAt = Date.now();
    const u: FrameUpdate = { frameId: this.frameId, rects, at: this.lastUpdateAt };
    this.emit('frame', u);
    return u;
  }

  /** A copy of a rectangle as tightly packed RGBA rows (consistent even while updates arrive). */
  crop(rect: Rect): Buffer {
    this.check(rect.x, rect.y, rect.width, rect.height);
    if (rect.x === 0 && rect.width === this.width) {
      return Buffer.from(this.data.subarray(rect.y * this.width * 4, (rect.y + rect.height) * this.width * 4));
    }
    const row = rect.width * 4;
    const out = Buffer.allocUnsafe(row * rect.height);
    for (let r = 0; r < rect.height; r++) {
      const o = ((rect.y + r) * this.width + rect.x) * 4;
      this.data.copy(out, r * row, o, o + row);
    }
    return out;
  }

  /** The RGB of one pixel (tests and diagnostics). */
  pixel(x: number, y: number): [number, number, number] {
    const o = (y * this.width + x) * 4;
    return [this.data[o]!, this.data[o + 1]!, this.data[o + 2]!];
  }

  private check(x: number, y: number, w: number, h: number): void {
    if (x < 0 || y < 0 || w < 0 || h < 0 || x + w > this.width || y + h > this.height) {
      throw new RangeError(`rectangle ${w}x${h}+${x}+${y} is outside the ${this.width}x${this.height} framebuffer`);
    }
  }
}
