import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '@holdfast/test/harness';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';
import { startVirtualDesktop } from '../virtual-desktop.js';

const S = 'desktop';
const FLOOR = join(fileURLToPath(new URL('..', import.meta.url)), 'baselines', 'grab-encode.js');

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface FloorSample {
  ms: number;
  bytes: number;
  width: number;
  height: number;
}

/** Starts the bare grab + encode floor on a display: `next()` runs one sample. */
function startFloor(env: Record<string, string>): { next: () => Promise<FloorSample>; stop: () => void } {
  const child = spawn(process.execPath, [FLOOR], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: ((s: FloorSample) => void)[] = [];
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiting.shift()?.(JSON.parse(line) as FloorSample);
    }
  });
  return {
    next: () =>
      new Promise<FloorSample>((resolve) => {
        waiting.push(resolve);
        child.stdin!.write('go\n');
      }),
    stop: () => child.stdin!.end(),
  };
}

/**
 * Issue 15 measures, on the `virtual` backend (1280×800, xlogo and xcalc on screen):
 * `desktop_screenshot` over MCP HTTP against the floor in the same run (an X11 GetImage plus a
 * sharp PNG encode in a bare process); the round trip of an action (`move`, without and with
 * `observe_after`) against a `desktop_get_session` round trip through the same layers; and the
 * driver's idle RSS (before and after its first screenshot loads sharp) against a bare idle node.
 */
export async function desktopSuite(): Promise<void> {
  const d = await startVirtualDesktop();
  try {
    const { tool, ds, driverPid, xenv } = d;

    // The idle driver before any screenshot (sharp not loaded yet) vs a bare idle node.
    const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
    await pollUntil('bare node up', () => bare.pid !== undefined && rssMb(bare.pid) > 20, 5000);
    await new Promise((r) => setTimeout(r, 1500)); // settle to idle (measurement, not synchronisation)
    const idleBefore = rssMb(driverPid);
    const bareRss = rssMb(bare.pid!);

    for (const cmd of ['xlogo -geometry 500x400+40+40', 'xcalc -geometry 300x400+700+120']) {
      await tool('execute', { command: cmd, background: true });
    }
    await new Promise((r) => setTimeout(r, 1000)); // let the programs draw (measurement setup)

    // Interleaved: one screenshot, one floor sample, so both see the same machine load.
    const floor = startFloor(xenv);
    const shots: number[] = [];
    const floorMs: number[] = [];
    let f: FloorSample | null = null;
    for (let k = 0; k < 43; k++) {
      const t0 = performance.now();
      await tool('desktop_screenshot', { desktop_session_id: ds });
      const t = performance.now() - t0;
      f = await floor.next();
      if (k >= 3) {
        shots.push(t);
        floorMs.push(f.ms);
      }
    }
    floor.stop();
    const last = await tool('desktop_screenshot', { desktop_session_id: ds });
    report({ suite: S, measure: `desktop_screenshot ${f!.width}x${f!.height} over MCP HTTP`, value: `p50 ${fmtMs(median(shots))} p99 ${fmtMs(percentile(shots, 99))}`, baseline: `GetImage+sharp PNG ${fmtMs(median(floorMs))}`, ratio: ratio(median(shots), median(floorMs)), note: `image ${JSON.stringify(last.data!.image_size)}` });

    let obs = last.data!.observation_id as string;
    let taken = Date.now();
    const fresh = async (): Promise<string> => {
      if (Date.now() - taken > 20_000) {
        obs = (await tool('desktop_screenshot', { desktop_session_id: ds, max_long_edge: 64 })).data!.observation_id as string;
        taken = Date.now();
      }
      return obs;
    };
    let i = 0;
    const moves: number[] = [];
    const gets: number[] = [];
    for (let k = 0; k < 110; k++) {
      const o = await fresh();
      let t0 = performance.now();
      await tool('desktop_action', { desktop_session_id: ds, observation_id: o, action: 'move', x: 100 + (i++ % 200), y: 300, observe_after: false });
      const tm = performance.now() - t0;
      t0 = performance.now();
      await tool('desktop_get_session', { desktop_session_id: ds });
      if (k >= 10) {
        moves.push(tm);
        gets.push(performance.now() - t0);
      }
    }
    report({ suite: S, measure: 'desktop_action move (no observe_after)', value: `p50 ${fmtMs(median(moves))} p99 ${fmtMs(percentile(moves, 99))}`, baseline: `desktop_get_session ${fmtMs(median(gets))}`, ratio: ratio(median(moves), median(gets)) });
    const observed = await sample(15, async () => tool('desktop_action', { desktop_session_id: ds, observation_id: await fresh(), action: 'move', x: 100 + (i++ % 200), y: 320 }), 2);
    report({ suite: S, measure: 'desktop_action move + observe_after', value: `p50 ${fmtMs(median(observed))} p99 ${fmtMs(percentile(observed, 99))}`, baseline: `screenshot alone ${fmtMs(median(shots))}`, ratio: ratio(median(observed), median(shots)), note: 'includes waiting for the screen to settle' });

    await new Promise((r) => setTimeout(r, 1500));
    const idleAfter = rssMb(driverPid);
    bare.kill();
    report({ suite: S, measure: 'driver idle RSS (connected, before sharp)', value: `${idleBefore.toFixed(1)} MB`, baseline: `bare idle node ${bareRss.toFixed(1)} MB`, ratio: ratio(idleBefore, bareRss) });
    report({ suite: S, measure: 'driver idle RSS (after screenshots)', value: `${idleAfter.toFixed(1)} MB`, baseline: `bare idle node ${bareRss.toFixed(1)} MB`, ratio: ratio(idleAfter, bareRss) });
  } finally {
    await d.close();
  }
}
