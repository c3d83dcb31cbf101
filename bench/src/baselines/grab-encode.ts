/**
 * Floor of `desktop_screenshot` (issue 15 bench): the least work a screenshot needs — grab the X
 * framebuffer (one X11 GetImage of the root window) and encode it as PNG with sharp at the
 * compression level holdfast uses — in a bare process with no holdfast code.
 *
 * usage: node grab-encode.js   (DISPLAY and XAUTHORITY from the environment)
 * Each line read on stdin runs one grab + encode and answers one line
 * {"ms": n, "bytes": n, "width": w, "height": h}, so the bench can interleave it with its own
 * samples (this machine's load varies from second to second).
 */
import { createInterface } from 'node:readline';
import sharp from 'sharp';
import x11 from 'x11';

interface XDisplay {
  screen: { root: number; pixel_width: number; pixel_height: number }[];
  client: { GetImage(f: number, d: number, x: number, y: number, w: number, h: number, m: number, cb: (err: Error | null, img: { data: Buffer }) => void): void; terminate(): void };
}

const createClient = (x11 as unknown as { createClient: (cb: (err: Error | null, d: XDisplay) => void) => void }).createClient;
createClient(async (err, d) => {
  if (err) throw err;
  const scr = d.screen[0]!;
  const grab = (): Promise<Buffer> => new Promise((resolve, reject) => d.client.GetImage(2, scr.root, 0, 0, scr.pixel_width, scr.pixel_height, 0xffffffff, (e, img) => (e ? reject(e) : resolve(img.data))));
  for await (const _line of createInterface({ input: process.stdin })) {
    const t0 = performance.now();
    const raw = await grab();
    const png = await sharp(raw, { raw: { width: scr.pixel_width, height: scr.pixel_height, channels: 4 } }).removeAlpha().png({ compressionLevel: 4 }).toBuffer();
    process.stdout.write(JSON.stringify({ ms: performance.now() - t0, bytes: png.length, width: scr.pixel_width, height: scr.pixel_height }) + '\n');
  }
  d.client.terminate();
  process.exit(0);
});
