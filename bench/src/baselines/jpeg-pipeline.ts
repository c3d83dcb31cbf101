/**
 * Baseline of the panel's video (issue 16 bench): the least work a JPEG video of an X display
 * needs — X11 GetImage of the root window, a sharp JPEG at the quality the panel uses, one
 * loopback WebSocket message per frame, the next frame only after the client acknowledged the
 * last (the panel's flow control) and at most one per `interval` ms — in a bare process with no
 * holdfast code (no RFB, no framebuffer model, no dirty rectangles).
 *
 * usage: node jpeg-pipeline.js <interval-ms> <quality>   (DISPLAY and XAUTHORITY from the environment)
 * Prints `{"port": n}` and serves one client; each line read on stdin prints
 * `{"frames", "bytes", "cpu_ms", "wall_ms"}` since the client connected; it exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import sharp from 'sharp';
import { WebSocketServer } from 'ws';
import x11 from 'x11';

interface XDisplay {
  screen: { root: number; pixel_width: number; pixel_height: number }[];
  client: { GetImage(f: number, d: number, x: number, y: number, w: number, h: number, m: number, cb: (err: Error | null, img: { data: Buffer }) => void): void; terminate(): void };
}

const interval = Number(process.argv[2] ?? 40);
const quality = Number(process.argv[3] ?? 75);
sharp.cache(false);
const createClient = (x11 as unknown as { createClient: (cb: (err: Error | null, d: XDisplay) => void) => void }).createClient;
createClient((err, d) => {
  if (err) throw err;
  const scr = d.screen[0]!;
  const grab = (): Promise<Buffer> => new Promise((resolve, reject) => d.client.GetImage(2, scr.root, 0, 0, scr.pixel_width, scr.pixel_height, 0xffffffff, (e, img) => (e ? reject(e) : resolve(img.data))));
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  let frames = 0;
  let bytes = 0;
  let cpu0 = process.cpuUsage();
  let t0 = performance.now();
  wss.on('listening', () => process.stdout.write(JSON.stringify({ port: (wss.address() as { port: number }).port }) + '\n'));
  wss.on('connection', (ws) => {
    cpu0 = process.cpuUsage();
    t0 = performance.now();
    let last = 0;
    const next = async (): Promise<void> => {
      const wait = last + interval - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      last = performance.now();
      const raw = await grab();
      // X11 ZPixmap rows are BGRX; the channel order is left as it is (encoding costs the same).
      const jpeg = await sharp(raw, { raw: { width: scr.pixel_width, height: scr.pixel_height, channels: 4 } }).removeAlpha().jpeg({ quality, chromaSubsampling: '4:2:0' }).toBuffer();
      frames++;
      bytes += jpeg.length + 16;
      ws.send(Buffer.concat([Buffer.alloc(16), jpeg]));
    };
    ws.on('message', () => void next());
    void next();
  });
  const lines = createInterface({ input: process.stdin });
  lines.on('line', () => {
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(JSON.stringify({ frames, bytes, cpu_ms: (cpu.user + cpu.system) / 1000, wall_ms: performance.now() - t0 }) + '\n');
  });
  lines.on('close', () => {
    d.client.terminate();
    process.exit(0);
  });
});
