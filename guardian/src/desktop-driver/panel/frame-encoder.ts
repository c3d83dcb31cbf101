import { PanelLimits, type Rect, type Size } from '@holdfast/shared/protocol';
import { loadSharp } from '../image-encoder.js';

/** Payload formats of a video frame (byte 0 of its header). */
export const FrameFormat = { JPEG: 1, RGB: 2 } as const;
/** Bytes of the header before each frame's payload. */
export const FRAME_HEADER_BYTES = 16;

/**
 * The 16-byte header of a binary video message (issue 16; big-endian):
 * `u8 format (1 JPEG, 2 raw RGB) | u8 flags (1 = whole screen) | u16 0 | u32 seq | u16 x | u16 y | u16 w | u16 h`.
 * For JPEG, (x, y, w, h) is where the picture goes in the framebuffer; for RGB, (w, h) is the
 * scaled picture's size and x = y = 0. The page acknowledges `seq` after drawing it.
 */
export function frameHeader(format: number, whole: boolean, seq: number, r: Rect): Buffer {
  const b = Buffer.alloc(FRAME_HEADER_BYTES);
  b.writeUInt8(format, 0);
  b.writeUInt8(whole ? 1 : 0, 1);
  b.writeUInt32BE(seq >>> 0, 4);
  b.writeUInt16BE(r.x, 8);
  b.writeUInt16BE(r.y, 10);
  b.writeUInt16BE(r.width, 12);
  b.writeUInt16BE(r.height, 14);
  return b;
}

/** JPEG of an RGBA region (alpha dropped), quality {@link PanelLimits.JPEG_QUALITY}, 4:2:0. */
export async function encodeJpeg(rgba: Buffer, size: Size, quality: number = PanelLimits.JPEG_QUALITY): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(rgba, { raw: { width: size.width, height: size.height, channels: 4 } })
    .removeAlpha()
    .jpeg({ quality, chromaSubsampling: '4:2:0' })
    .toBuffer();
}

/** Raw RGB (3 bytes per pixel) of an RGBA picture scaled to `out` (aspect is the caller's business). */
export async function scaleRgb(rgba: Buffer, size: Size, out: Size): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(rgba, { raw: { width: size.width, height: size.height, channels: 4 } })
    .resize(out.width, out.height, { fit: 'fill', kernel: 'linear' })
    .removeAlpha()
    .raw()
    .toBuffer();
}

/** The smallest rectangle holding both (either may be null). */
export function unionRect(a: Rect | null, b: Rect): Rect {
  if (!a) return { ...b };
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}
