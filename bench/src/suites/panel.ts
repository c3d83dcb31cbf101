import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@holdfast/test/harness/browser';
import { pollUntil } from '@holdfast/test/harness';
import type { Browser, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { fmtMs, median, percentile, ratio, report } from '../stats.js';
import { startVirtualDesktop } from '../virtual-desktop.js';

const S = 'panel';
const BASELINES = join(fileURLToPath(new URL('..', import.meta.url)), 'baselines');
/** Length of each throughput window, ms. */
const WINDOW_MS = 4000;
const LATENCY_SAMPLES = 25;
const CLK_TCK = 100;

/** CPU time of a process so far (user + system), ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** A pid whose command line contains every `parts` (or null). */
function findProcess(parts: string[]): number | null {
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const cmd = readFileSync(`/proc/${n}/cmdline`, 'utf8');
      if (parts.every((p) => cmd.includes(p))) return Number(n);
    } catch {
      // gone
    }
  }
  return null;
}

/** Starts a bench helper (bench/dist/baselines) and reads its first JSON line. */
async function helper(name: string, args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; first: Record<string, number>; stats: () => Promise<Record<string, number>>; end: () => void }> {
  const child = spawn(process.execPath, [join(BASELINES, `${name}.js`), ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  const first = JSON.parse(await pollUntil(`${name} to start`, () => lines.shift(), 10_000)) as Record<string, number>;
  return {
    child,
    first,
    stats: async () => {
      child.stdin!.write('stats\n');
      return JSON.parse(await pollUntil(`${name} stats`, () => lines.shift(), 10_000)) as Record<string, number>;
    },
    end: () => child.stdin!.end(),
  };
}

/** A way of keeping the whole screen changing: two root backgrounds, flipped as fast as xsetroot runs. */
interface Workload {
  name: string;
  a: string[];
  b: string[];
}

function startFlipper(env: Record<string, string>, w: Workload): ChildProcess {
  const q = (args: string[]): string => args.map((x) => `'${x}'`).join(' ');
  return spawn('sh', ['-c', `while :; do xsetroot ${q(w.a)}; xsetroot ${q(w.b)}; done`], { env: { ...process.env, ...env }, stdio: 'ignore', detached: true });
}

/** A 1-bit noise bitmap (XBM) of `w`×`h`: the worst case for every codec. */
function noiseBitmap(file: string, w: number, h: number): void {
  const hex = [...randomBytes((w / 8) * h)].map((b) => `0x${b.toString(16).padStart(2, '0')}`);
  // xsetroot's XBM reader wants short lines, as bitmap(1) writes them.
  const lines: string[] = [];
  for (let i = 0; i < hex.length; i += 12) lines.push(`   ${hex.slice(i, i + 12).join(', ')}`);
  writeFileSync(file, `#define noise_width ${w}\n#define noise_height ${h}\nstatic unsigned char noise_bits[] = {\n${lines.join(',\n')}};\n`);
}

function stopFlipper(c: ChildProcess): void {
  try {
    process.kill(-c.pid!, 'SIGKILL');
  } catch {
    // gone
  }
}

/**
 * In-page probes (the same for both pages): frames and bytes of the panel's video, and a watcher
 * that resolves the time (epoch ms) a canvas pixel turns a colour, checked every 2 ms.
 */
const PROBES = `
  window.hfStats = { frames: 0, bytes: 0 };
  // The panel's video client announces each drawn frame (capture phase: the event does not bubble).
  window.addEventListener('hf-frame', (e) => { window.hfStats.frames++; window.hfStats.bytes += e.detail.bytes; }, true);
  window.hfCanvas = () => document.querySelector('canvas');
  window.hfArm = (rgb) => {
    window.hfDone = new Promise((resolve) => {
      const iv = setInterval(() => {
        const c = window.hfCanvas();
        if (!c || c.width < 20) return;
        const d = c.getContext('2d').getImageData(10, 10, 1, 1).data;
        if (Math.abs(d[0] - rgb[0]) < 12 && Math.abs(d[1] - rgb[1]) < 12 && Math.abs(d[2] - rgb[2]) < 12) {
          clearInterval(iv);
          resolve(Date.now());
        }
      }, 2);
    });
  };
`;

/** Pixel change on the display → the page's canvas: `n` samples, ms. */
async function latencies(page: Page, env: Record<string, string>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const rgb = [40 + ((i * 37) % 200), 200 - ((i * 53) % 150), 30 + ((i * 71) % 200)];
    await page.evaluate(`window.hfArm(${JSON.stringify(rgb)})`);
    spawnSync('xsetroot', ['-solid', `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`], { env: { ...process.env, ...env } });
    const t0 = Date.now();
    const t1 = (await page.evaluate('window.hfDone')) as number;
    if (i >= 3) out.push(Math.max(0, t1 - t0));
    // An idle gap, so each sample is one isolated change (not held back by the previous frame's rate limit).
    await new Promise((r) => setTimeout(r, 80 + Math.random() * 80));
  }
  return out;
}

/** A tiny web server for the noVNC page: `/` and the noVNC package under `/novnc/`. */
function noVncServer(bridgePort: number): Promise<{ server: Server; url: string }> {
  // The package exports core/rfb.js: its root is two levels up.
  const root = dirname(dirname(fileURLToPath(import.meta.resolve('@novnc/novnc'))));
  const page = `<!doctype html><meta charset="utf-8"><body style="margin:0"><div id="screen"></div>
<script type="module">
import RFB from '/novnc/core/rfb.js';
const rfb = new RFB(document.getElementById('screen'), 'ws://127.0.0.1:${bridgePort}/');
rfb.viewOnly = true;
window.hfConnected = new Promise((r) => rfb.addEventListener('connect', () => r(true)));
const flip = rfb._display.flip.bind(rfb._display);
rfb._display.flip = (...a) => { if (window.hfStats) window.hfStats.frames++; return flip(...a); };
</script>`;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
    const file = normalize(join(root, url.pathname.replace(/^\/novnc\//, '')));
    if (!file.startsWith(root)) return void res.writeHead(404).end();
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      return void res.writeHead(404).end();
    }
    res.writeHead(200, { 'Content-Type': file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream' }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` })));
}

/**
 * Issue 16 measures, at 1280×800 on the `virtual` backend: the panel's video in headless Chromium
 * (frames per second and bytes per second while the whole screen keeps changing, the latency of a
 * pixel change on the display to the page's canvas) and the driver's CPU while streaming — against
 * a bare encoder pipeline in the same run (GetImage + sharp JPEG + WebSocket, same frame cap and
 * flow control) and against the other path weighed: noVNC in the page through a WebSocket-to-RFB
 * bridge to the same VNC server.
 */
export async function panelSuite(): Promise<void> {
  const d = await startVirtualDesktop();
  let browser: Browser | null = null;
  let flipper: ChildProcess | null = null;
  try {
    const { h, tool, driverPid, desktopDir, xenv } = d;
    const view = (await tool('desktop_open', {})).data!.view_id as string;
    const control = h.client();
    await control.call('desktop.pair', { view_id: view, device: 'virtual', close: false });
    const link = await control.call('desktop.panel_link', { view_id: view });
    const server = findProcess(['Xtigervnc', desktopDir]) ?? findProcess(['x11vnc', desktopDir]);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.addInitScript(PROBES);
    await page.goto(link.url);
    await pollUntil('the panel video', async () => (await page.evaluate('window.hfStats.frames')) as number > 0, 15_000);

    const xbm = join(h.home, 'noise.xbm');
    noiseBitmap(xbm, 1280, 800);
    const workloads: Workload[] = [
      { name: 'solid colours', a: ['-solid', '#102030'], b: ['-solid', '#a0b0c0'] },
      { name: 'detailed picture', a: ['-bitmap', xbm, '-fg', '#ff8800', '-bg', '#002244'], b: ['-bitmap', xbm, '-fg', '#0088ff', '-bg', '#442200'] },
    ];
    /** Runs `w` for a window and returns what `measure` says about it (after 500 ms of warm-up). */
    const during = async <T>(w: Workload, start: () => Promise<void>, measure: () => Promise<T>): Promise<T> => {
      flipper = startFlipper(xenv, w);
      try {
        await new Promise((r) => setTimeout(r, 500)); // reach steady state (measurement, not synchronisation)
        await start();
        await new Promise((r) => setTimeout(r, WINDOW_MS));
        return await measure();
      } finally {
        stopFlipper(flipper);
        flipper = null;
      }
    };

    // The driver's own RFB feed (kept live for the agent's screenshots) costs CPU without any viewer.
    await page.goto('about:blank');
    const feed: number[] = [];
    for (const w of workloads) {
      let d0 = 0;
      let t0 = 0;
      feed.push(
        await during(
          w,
          async () => {
            d0 = cpuMs(driverPid);
            t0 = performance.now();
          },
          async () => (cpuMs(driverPid) - d0) / (performance.now() - t0),
        ),
      );
    }
    await page.goto((await control.call('desktop.panel_link', { view_id: view })).url);
    await pollUntil('the panel video again', async () => ((await page.evaluate('window.hfStats.frames')) as number) > 0, 15_000);

    // The panel: latency of one change, then throughput and the driver's CPU per workload.
    const lat = await latencies(page, xenv, LATENCY_SAMPLES);
    const hfRuns: { fps: number; bps: number; cpu: number; server: number }[] = [];
    for (const w of workloads) {
      let d0 = 0;
      let s0 = 0;
      let t0 = 0;
      hfRuns.push(
        await during(
          w,
          async () => {
            await page.evaluate('window.hfStats.frames = 0; window.hfStats.bytes = 0');
            d0 = cpuMs(driverPid);
            s0 = server ? cpuMs(server) : 0;
            t0 = performance.now();
          },
          async () => {
            const wall = performance.now() - t0;
            const st = (await page.evaluate('({ ...window.hfStats })')) as { frames: number; bytes: number };
            return { fps: (st.frames * 1000) / wall, bps: (st.bytes * 1000) / wall, cpu: (cpuMs(driverPid) - d0) / wall, server: server ? (cpuMs(server) - s0) / wall : NaN };
          },
        ),
      );
    }
    await page.close();

    // Baseline: a bare GetImage + JPEG + WebSocket pipeline with the same frame cap and acks.
    const pipe = await helper('jpeg-pipeline', ['40', '75'], xenv);
    const ws = new WebSocket(`ws://127.0.0.1:${pipe.first.port}/`);
    ws.on('message', () => ws.send('ack'));
    const bareRuns: { fps: number; bps: number; cpu: number }[] = [];
    for (const w of workloads) {
      let p0: Record<string, number> = {};
      bareRuns.push(
        await during(
          w,
          async () => {
            p0 = await pipe.stats();
          },
          async () => {
            const p1 = await pipe.stats();
            const wall = p1.wall_ms! - p0.wall_ms!;
            return { fps: ((p1.frames! - p0.frames!) * 1000) / wall, bps: ((p1.bytes! - p0.bytes!) * 1000) / wall, cpu: (p1.cpu_ms! - p0.cpu_ms!) / wall };
          },
        ),
      );
    }
    ws.close();
    pipe.end();

    // The other path: noVNC in the page through a WebSocket-to-RFB bridge to the same VNC server.
    const bridge = await helper('ws-rfb-bridge', [join(desktopDir, 'vnc.sock')], {});
    const web = await noVncServer(bridge.first.port!);
    const nv = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await nv.addInitScript(PROBES);
    await nv.goto(web.url);
    await nv.evaluate('window.hfConnected');
    await pollUntil('noVNC frames', async () => ((await nv.evaluate('window.hfStats.frames')) as number) > 0, 15_000);
    const nvLat = await latencies(nv, xenv, LATENCY_SAMPLES);
    const nvRuns: { fps: number; bps: number; bridge: number; server: number }[] = [];
    for (const w of workloads) {
      let b0: Record<string, number> = {};
      let s1 = 0;
      nvRuns.push(
        await during(
          w,
          async () => {
            await nv.evaluate('window.hfStats.frames = 0');
            b0 = await bridge.stats();
            s1 = server ? cpuMs(server) : 0;
          },
          async () => {
            const b1 = await bridge.stats();
            const wall = b1.wall_ms! - b0.wall_ms!;
            const frames = (await nv.evaluate('window.hfStats.frames')) as number;
            return { fps: (frames * 1000) / wall, bps: ((b1.bytes_to_page! - b0.bytes_to_page!) * 1000) / wall, bridge: (b1.cpu_ms! - b0.cpu_ms!) / wall, server: server ? (cpuMs(server) - s1) / wall : NaN };
          },
        ),
      );
    }
    await nv.close();
    bridge.end();
    web.server.close();

    const mbs = (bps: number): string => `${(bps / 1e6).toFixed(2)} MB/s`;
    const pct = (v: number): string => `${(v * 100).toFixed(0)}%`;
    report({ suite: S, measure: 'latency pixel change → page canvas (1280x800)', value: `p50 ${fmtMs(median(lat))} p99 ${fmtMs(percentile(lat, 99))}`, baseline: `noVNC via bridge ${fmtMs(median(nvLat))}`, ratio: ratio(median(lat), median(nvLat)), note: `noVNC p99 ${fmtMs(percentile(nvLat, 99))}` });
    workloads.forEach((w, i) => {
      const hf = hfRuns[i]!;
      const bare = bareRuns[i]!;
      const nvr = nvRuns[i]!;
      report({ suite: S, measure: `fps, whole screen changing (${w.name})`, value: `${hf.fps.toFixed(1)} fps`, baseline: `bare JPEG pipeline ${bare.fps.toFixed(1)} fps`, ratio: ratio(hf.fps, bare.fps), note: `noVNC via bridge ${nvr.fps.toFixed(1)} fps; panel cap 25` });
      report({ suite: S, measure: `loopback bytes/s (${w.name})`, value: mbs(hf.bps), baseline: `noVNC via bridge ${mbs(nvr.bps)}`, ratio: ratio(hf.bps, nvr.bps), note: `bare JPEG pipeline ${mbs(bare.bps)}` });
      report({ suite: S, measure: `driver CPU streaming (${w.name})`, value: pct(hf.cpu), baseline: `bare JPEG pipeline ${pct(bare.cpu)}`, ratio: ratio(hf.cpu / Math.max(hf.fps, 0.1), bare.cpu / Math.max(bare.fps, 0.1)), note: `one core = 100%; ratio per frame; no viewer: ${pct(feed[i]!)}` });
      report({ suite: S, measure: `VNC server CPU (${w.name})`, value: `panel ${pct(hf.server)}`, baseline: `noVNC ${pct(nvr.server)} + bridge ${pct(nvr.bridge)}`, ratio: ratio(hf.server, nvr.server + nvr.bridge), note: "the driver's own RFB feed runs in both" });
    });
  } finally {
    if (flipper) stopFlipper(flipper);
    await browser?.close().catch(() => undefined);
    await d.close();
  }
}
