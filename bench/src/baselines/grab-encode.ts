/**
 * Floor of `desktop_screenshot` (issue 15 bench): the least work a screenshot needs — grab the X
 * framebuffer (one X11 GetImage of the root window) and encode it as PNG with sharp at the
 * compression level holdfast uses — in a bare process with no holdfast code.
 *
 * usage: node grab-encode.js N   (DISPLAY and XAUTHORITY from the environment)
 * prints: {"ms": [...], "bytes": n, "width": w, "height": h}
 */
import sharp from 'sharp';
import x11 from 'x11';

interface XDisplay {
  screen: { root: number; pixel_width: number; pixel_height: number }[];
  client: { GetImage(f: number, d: number, x: number, y: number, w: number, h: number, m: number, cb: (err: Error | null, img: { data: Buffer }) => void): void; terminate(): void };
}

const n = Number(process.argv[2] ?? 20);
const createClient = (x11 as unknown as { createClient: (cb: (err: Error | null, d: XDisplay) => void) => void }).createClient;
createClient(async (err, d) => {
  if (err) throw err;
  const scr = d.screen[0]!;
  const grab = (): Promise<Buffer> => new Promise((resolve, reject) => d.client.GetImage(2, scr.root, 0, 0, scr.pixel_width, scr.pixel_height, 0xffffffff, (e, img) => (e ? reject(e) : resolve(img.data))));
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n + 3; i++) {
    const t0 = performance.now();
    const raw = await grab();
    const png = await sharp(raw, { raw: { width: scr.pixel_width, height: scr.pixel_height, channels: 4 } }).removeAlpha().png({ compressionLevel: 4 }).toBuffer();
    if (i >= 3) ms.push(performance.now() - t0);
    bytes = png.length;
  }
  process.stdout.write(JSON.stringify({ ms, bytes, width: scr.pixel_width, height: scr.pixel_height }) + '\n');
  d.client.terminate();
  process.exit(0);
});
