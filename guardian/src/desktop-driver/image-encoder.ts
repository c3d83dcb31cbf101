import { DesktopLimits, HoldfastError, type Rect, type Size } from '@holdfast/shared/protocol';

type SharpModule = typeof import('sharp');
let sharpLoading: Promise<SharpModule['default']> | null = null;

/** sharp, loaded on the first screenshot or video frame (it costs ~20 MB of RSS an idle driver need not pay). */
export function loadSharp(): Promise<SharpModule['default']> {
  sharpLoading ??= import('sharp').then((m) => {
    // Every screenshot is new pixels: libvips' operation cache (up to 50 MB) would only hold
    // memory in a process that lives for days.
    m.default.cache(false);
    return m.default;
  });
  return sharpLoading;
}

export interface EncodedImage {
  png: Buffer;
  size: Size;
}

/** PNG deflate level: screens compress well at low levels, and 4 is several times faster than 9. */
const PNG_COMPRESSION_LEVEL = 4;

/**
 * Scales an RGBA region (alpha 255) so its long edge is at most `maxLongEdge` (never upscaled)
 * and encodes it as PNG; a PNG larger than `maxBytes` is scaled down further until it fits
 * (issue 15 §5: ≤ 2 MiB, shrunk with the real size reported).
 * @throws HoldfastError `INTERNAL` when even a tiny image does not fit (cannot happen for sane limits).
 */
export async function encodePng(rgba: Buffer, source: Size, maxLongEdge: number, maxBytes: number = DesktopLimits.SCREENSHOT_MAX_BYTES): Promise<EncodedImage> {
  const sharp = await loadSharp();
  let scale = Math.min(1, maxLongEdge / Math.max(source.width, source.height));
  for (let attempt = 0; attempt < 8; attempt++) {
    const size = { width: Math.max(1, Math.round(source.width * scale)), height: Math.max(1, Math.round(source.height * scale)) };
    let img = sharp(rgba, { raw: { width: source.width, height: source.height, channels: 4 } });
    if (size.width !== source.width || size.height !== source.height) img = img.resize(size.width, size.height, { fit: 'fill' });
    const png = await img.removeAlpha().png({ compressionLevel: PNG_COMPRESSION_LEVEL }).toBuffer();
    if (png.length <= maxBytes) return { png, size };
    scale *= Math.sqrt(maxBytes / png.length) * 0.9;
  }
  throw new HoldfastError('INTERNAL', `the screenshot does not fit in ${maxBytes} bytes even when scaled down`);
}

/**
 * The source rectangle of a screenshot: `rect` (relative to the display) clipped to the display,
 * in framebuffer pixels.
 * @throws HoldfastError `BAD_REQUEST` when `rect` lies outside the display.
 */
export function sourceRect(display: Rect, rect: Rect | undefined): Rect {
  if (!rect) return { ...display };
  const x = display.x + rect.x;
  const y = display.y + rect.y;
  const right = Math.min(display.x + display.width, x + rect.width);
  const bottom = Math.min(display.y + display.height, y + rect.height);
  if (right <= x || bottom <= y) {
    throw new HoldfastError('BAD_REQUEST', `rect ${rect.width}x${rect.height}+${rect.x}+${rect.y} lies outside the ${display.width}x${display.height} display`, { retryable: false });
  }
  return { x, y, width: right - x, height: bottom - y };
}
