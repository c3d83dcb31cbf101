import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HoldfastError } from '@holdfast/shared/protocol';
import { VirtualDisplay, type RunningDisplay } from '../backends/virtual-display.js';
import { DesktopSession } from '../desktop-session.js';
import { Framebuffer } from '../framebuffer.js';
import { OperationLedger } from '../operation-ledger.js';
import { LOCAL_ENCODINGS, REMOTE_ENCODINGS } from './messages.js';
import { RfbClient, type RfbEndpoint } from './rfb-client.js';

/**
 * The RFB client against real servers (issue 15): Xtigervnc and Xvfb + x11vnc (both started by
 * the private-display code, which is itself under test here), and x11vnc speaking RFB 3.3 and 3.7
 * with a VNC password. Pixels are drawn with `xsetroot`; a size change with `xrandr --fb`.
 */
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync('/tmp/hf-rfb-');
  dirs.push(d);
  return d;
};
const connect = (endpoint: RfbEndpoint, encodings: readonly number[], password?: string): Promise<RfbClient> =>
  RfbClient.connect({ endpoint, password, encodings, framebuffer: new Framebuffer(), timeoutMs: 10_000, minUpdateIntervalMs: 20 });
const fbOf = (c: RfbClient): Framebuffer => (c as unknown as { fb: Framebuffer }).fb;
const setRoot = (d: RunningDisplay, colour: string): void => {
  spawnSync('xsetroot', ['-solid', colour], { env: { ...process.env, ...d.env }, timeout: 10_000 });
};
async function until(what: string, fn: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('RFB client against Xtigervnc (the private display)', () => {
  const vd = new VirtualDisplay(tmp());
  let d: RunningDisplay;
  before(async () => {
    d = await vd.ensure({ kind: 'virtual', width: 640, height: 480, server: 'xtigervnc', window_manager: '' });
  });
  after(() => vd.stop());

  it('decodes raw and ZRLE frames and follows changes through incremental updates', async () => {
    setRoot(d, '#123456');
    for (const enc of [LOCAL_ENCODINGS, REMOTE_ENCODINGS]) {
      const c = await connect({ path: d.socketPath }, enc);
      const fb = fbOf(c);
      assert.equal(c.version, '3.8');
      assert.deepEqual([fb.width, fb.height], [640, 480]);
      await c.refresh(5000);
      assert.deepEqual(fb.pixel(10, 10), [0x12, 0x34, 0x56]);
      setRoot(d, '#abcdef');
      await until('the new colour without a refresh', () => fb.pixel(600, 400).join() === [0xab, 0xcd, 0xef].join());
      setRoot(d, '#123456');
      await until('the colour back', () => fb.pixel(5, 5)[0] === 0x12);
      c.close();
      assert.equal(c.isOpen, false);
      await assert.rejects(c.key(0x61, true), /closed/);
    }
  });

  it('resizes the framebuffer on DesktopSize, and a desktop session ends its observations then', async () => {
    const s = new DesktopSession({
      params: { desktop_session_id: 'ds_test', device: 'virtual', backend: { kind: 'virtual', width: 640, height: 480, server: 'xtigervnc', window_manager: '' }, authorization: 'control', paused: false },
      driverPid: process.pid,
      virtual: vd,
      ledger: new OperationLedger(),
    });
    await s.open();
    try {
      const shot = await s.screenshot({ desktop_session_id: 'ds_test', max_long_edge: 320 });
      assert.deepEqual(shot.observation.image_size, { width: 320, height: 240 });
      const epoch = s.view().geometry_epoch;
      spawnSync('xrandr', ['--fb', '800x600'], { env: { ...process.env, ...d.env }, timeout: 10_000 });
      await until('the new size', () => s.fb.width === 800 && s.fb.height === 600);
      assert.ok(s.view().geometry_epoch > epoch);
      await assert.rejects(
        s.act({ desktop_session_id: 'ds_test', observation_id: shot.observation.observation_id, action: 'move', x: 1, y: 1, observe_after: false }),
        (e: HoldfastError) => e.code === 'OBSERVATION_EXPIRED' && /size or layout changed/.test(e.message),
      );
    } finally {
      await s.close('test');
      spawnSync('xrandr', ['--fb', '640x480'], { env: { ...process.env, ...d.env }, timeout: 10_000 });
    }
  });
});

describe('RFB client against Xvfb + x11vnc', () => {
  const vd = new VirtualDisplay(tmp());
  let d: RunningDisplay;
  const servers: ChildProcess[] = [];
  before(async () => {
    d = await vd.ensure({ kind: 'virtual', width: 320, height: 240, server: 'xvfb', window_manager: '' });
  });
  after(async () => {
    for (const s of servers) s.kill('SIGKILL');
    await vd.stop();
  });

  /** x11vnc on the same display, with a password, speaking `version`. */
  async function passwordServer(version: string, password: string): Promise<number> {
    const dir = tmp();
    spawnSync('x11vnc', ['-storepasswd', password, join(dir, 'pw')], { stdio: 'ignore' });
    const child = spawn('x11vnc', ['-display', d.xDisplay, '-auth', d.env.XAUTHORITY, '-rfbauth', join(dir, 'pw'), '-rfbversion', version, '-localhost', '-shared', '-forever', '-quiet', '-autoport', String(20000 + Math.floor(Math.random() * 30000))], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    servers.push(child);
    return new Promise<number>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (b: Buffer) => {
        text += b.toString();
        const m = /PORT=(\d+)/.exec(text);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`x11vnc exited ${code}`)));
    });
  }

  it('connects over the Unix socket (ZRLE) and sees the root colour', async () => {
    setRoot(d, '#204060');
    const c = await connect({ path: d.socketPath }, REMOTE_ENCODINGS);
    await until('the root colour', () => fbOf(c).pixel(100, 100).join() === '32,64,96');
    c.close();
  });

  it('authenticates with a VNC password over RFB 3.3 and 3.7, and refuses a wrong or missing one', async () => {
    const [p33, p37] = await Promise.all([passwordServer('3.3', 'secret-1'), passwordServer('3.7', 'secret-1')]);
    for (const [version, port] of [['3.3', p33], ['3.7', p37]] as const) {
      const c = await connect({ host: '127.0.0.1', port }, REMOTE_ENCODINGS, 'secret-1');
      assert.equal(c.version, version);
      assert.deepEqual([fbOf(c).width, fbOf(c).height], [320, 240]);
      c.close();
    }
    await Promise.all([
      assert.rejects(connect({ host: '127.0.0.1', port: p37 }, REMOTE_ENCODINGS, 'wrong'), (e: HoldfastError) => e.code === 'DESKTOP_AUTH_FAILED'),
      assert.rejects(connect({ host: '127.0.0.1', port: p33 }, REMOTE_ENCODINGS), (e: HoldfastError) => e.code === 'DESKTOP_AUTH_FAILED' && /none is stored/.test(e.message)),
    ]);
  });

  it('says DESKTOP_UNAVAILABLE when nothing listens', async () => {
    await assert.rejects(connect({ path: join(tmp(), 'nothing.sock') }, LOCAL_ENCODINGS), (e: HoldfastError) => e.code === 'DESKTOP_UNAVAILABLE');
  });
});
