import { FileLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { ImageMime } from './mime.js';

/** JPEG qualities tried, in order, until an image fits FileLimits.IMAGE_MAX_BYTES. */
const JPEG_QUALITIES = [85, 70, 55, 40] as const;
/** Each further attempt shrinks the long edge by this factor. */
const SHRINK_FACTOR = 0.75;

/** An image ready to return as MCP image content (issue 4). */
export interface RenderedImage {
  data: Buffer;
  mimeType: string;
  width: number;
  height: number;
  source: { width: number; height: number; bytes: number; mime_type: ImageMime };
  scaled: boolean;
}

type Sharp = (typeof import('sharp'))['default'];
let sharpModule: Promise<Sharp> | null = null;

/** sharp is a native module: loaded on the first image read, never at daemon start. */
function loadSharp(): Promise<Sharp> {
  sharpModule ??= import('sharp').then((m) => m.default);
  return sharpModule;
}

/**
 * Scales an image to at most FileLimits.IMAGE_MAX_EDGE_PX on the long edge and
 * FileLimits.IMAGE_MAX_BYTES (re-encoding as JPEG, then shrinking, when needed; field failure #17).
 * An image already within both limits is returned as it is.
 * @throws HoldfastError FILE_TOO_LARGE for sources over FileLimits.IMAGE_SOURCE_MAX_BYTES,
 *   UNSUPPORTED_FILE_TYPE when the image cannot be decoded.
 */
export async function renderImage(bytes: Buffer, mime: ImageMime, path: string): Promise<RenderedImage> {
  if (bytes.length > FileLimits.IMAGE_SOURCE_MAX_BYTES) {
    throw new HoldfastError('FILE_TOO_LARGE', `${path} is an image of ${bytes.length} bytes; images up to ${FileLimits.IMAGE_SOURCE_MAX_BYTES} bytes are shown`, { details: { path } });
  }
  const sharp = await loadSharp();
  let meta: { width?: number | undefined; height?: number | undefined };
  try {
    meta = await sharp(bytes, { animated: false }).metadata();
  } catch (err) {
    throw new HoldfastError('UNSUPPORTED_FILE_TYPE', `${path} looks like ${mime} but cannot be decoded: ${(err as Error).message}`, { details: { path } });
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const source = { width, height, bytes: bytes.length, mime_type: mime };
  const maxEdge = FileLimits.IMAGE_MAX_EDGE_PX;
  if (width <= maxEdge && height <= maxEdge && bytes.length <= FileLimits.IMAGE_MAX_BYTES) {
    return { data: bytes, mimeType: mime, width, height, source, scaled: false };
  }
  let edge = Math.min(maxEdge, Math.max(width, height));
  for (;;) {
    const base = sharp(bytes, { animated: false }).rotate().resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
    if (mime === 'image/png' || mime === 'image/gif') {
      const out = await base.clone().png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true });
      if (out.data.length <= FileLimits.IMAGE_MAX_BYTES) return { data: out.data, mimeType: 'image/png', width: out.info.width, height: out.info.height, source, scaled: true };
    }
    for (const quality of JPEG_QUALITIES) {
      const out = await base.clone().flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer({ resolveWithObject: true });
      if (out.data.length <= FileLimits.IMAGE_MAX_BYTES) return { data: out.data, mimeType: 'image/jpeg', width: out.info.width, height: out.info.height, source, scaled: true };
    }
    edge = Math.floor(edge * SHRINK_FACTOR);
    if (edge < 16) throw new HoldfastError('FILE_TOO_LARGE', `${path} cannot be scaled under ${FileLimits.IMAGE_MAX_BYTES} bytes`, { details: { path } });
  }
}
