import { hostname, homedir } from 'node:os';
import { join } from 'node:path';
import x11 from 'x11';
import { DesktopLimits, HoldfastError, type CaptureParams, type CaptureResult } from '@holdfast/shared/protocol';
import { encodePng, sourceRect } from './image-encoder.js';
import { readCookie } from './xauthority.js';

/** The parts of the `x11` client this module uses (the package ships no types). */
interface XVisual {
  red_mask: number;
  green_mask: number;
  blue_mask: number;
}
interface XScreen {
  root: number;
  pixel_width: number;
  pixel_height: number;
  root_depth: number;
  root_visual: number;
  depths: Record<number, Record<number, XVisual>>;
}
interface XDisplay {
  screen: XScreen[];
  image_byte_order: number;
  client: {
    GetImage(format: number, drawable: number, x: number, y: number, w: number, h: number, planeMask: number, cb: (err: Error | null, img: { depth: number; data: Buffer }) => void): void;
    terminate(): void;
    on(ev: 'error', fn: (err: Error) => void): void;
  };
}
type CreateClient = (opts: { display: string; auth?: { name: string; data: Buffer } }, cb: (err: Error | null, d: XDisplay) => void) => { on(ev: 'error', fn: (err: Error) => void): void };

const Z_PIXMAP = 2;

/**
 * One image of an X display (issue 15 `screenshot_capture` of a display the person allowed in
 * `desktop.capture_displays`): an X11 GetImage of the root window through the pure-JS `x11`
 * client, authenticated with the display's MIT cookie from `xauthority` (default `$XAUTHORITY`,
 * else `~/.Xauthority`). 24-bit TrueColor (32 bits per pixel) displays only — what Xorg, Xvfb and
 * Xvnc run. Scaled and encoded like desktop screenshots; nothing is written to disk.
 * @throws HoldfastError `DESKTOP_UNAVAILABLE` when the display cannot be opened or read.
 */
export async function captureDisplay(p: CaptureParams): Promise<CaptureResult> {
  const number = /^:(\d+)/.exec(p.display)![1]!;
  const authFile = p.xauthority ?? process.env.XAUTHORITY ?? join(homedir(), '.Xauthority');
  const cookie = readCookie(authFile, number, hostname());
  const d = await open(p.display, cookie);
  try {
    const scr = d.screen[0]!;
    const whole = { index: 0, x: 0, y: 0, width: scr.pixel_width, height: scr.pixel_height };
    const src = sourceRect(whole, p.rect);
    const visual = scr.depths[scr.root_depth]?.[scr.root_visual];
    if (scr.root_depth !== 24 || !visual) throw unavailable(`${p.display} has a ${scr.root_depth}-bit visual; only 24-bit TrueColor displays can be captured`);
    const img = await new Promise<{ depth: number; data: Buffer }>((resolve, reject) => {
      d.client.GetImage(Z_PIXMAP, scr.root, src.x, src.y, src.width, src.height, 0xffffffff, (err, image) => (err ? reject(err) : resolve(image)));
    });
    const rgba = toRgba(img.data, src.width * src.height, visual, d.image_byte_order);
    const maxEdge = Math.min(p.max_long_edge ?? DesktopLimits.SCREENSHOT_LONG_EDGE_DEFAULT_PX, DesktopLimits.SCREENSHOT_LONG_EDGE_MAX_PX);
    const out = await encodePng(rgba, { width: src.width, height: src.height }, maxEdge);
    return { source_size: { width: whole.width, height: whole.height }, source_rect: src, image_size: out.size, image: out.png, mime_type: 'image/png' };
  } catch (err) {
    if (err instanceof HoldfastError) throw err;
    throw unavailable(`reading ${p.display} failed: ${(err as Error).message}`);
  } finally {
    d.client.terminate();
  }
}

function open(display: string, cookie: { name: string; data: Buffer } | null): Promise<XDisplay> {
  return new Promise<XDisplay>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      reject(unavailable(`cannot open X display ${display}: ${err.message}`));
    };
    const createClient = (x11 as unknown as { createClient: CreateClient }).createClient;
    const c = createClient({ display, ...(cookie ? { auth: cookie } : {}) }, (err, d) => {
      if (err) return fail(err);
      settled = true;
      d.client.on('error', () => undefined);
      resolve(d);
    });
    c.on('error', fail);
  });
}

/** 32-bit pixels (per the visual's masks and the server's byte order) → RGBA with alpha 255. */
function toRgba(data: Buffer, pixels: number, v: XVisual, byteOrder: number): Buffer {
  const shift = (mask: number): number => 31 - Math.clz32(mask & -mask);
  const rs = shift(v.red_mask);
  const gs = shift(v.green_mask);
  const bs = shift(v.blue_mask);
  const out = Buffer.allocUnsafe(pixels * 4);
  for (let i = 0; i < pixels; i++) {
    const px = byteOrder === 0 ? data.readUInt32LE(i * 4) : data.readUInt32BE(i * 4);
    out[i * 4] = (px >>> rs) & 0xff;
    out[i * 4 + 1] = (px >>> gs) & 0xff;
    out[i * 4 + 2] = (px >>> bs) & 0xff;
    out[i * 4 + 3] = 255;
  }
  return out;
}

function unavailable(message: string): HoldfastError {
  return new HoldfastError('DESKTOP_UNAVAILABLE', message, { retryable: false });
}
