import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { decodePng, findColour, PYTHON, RECORDER, recorderEvents, sessionTools, startXvfb, type XServer } from './_harness/desktop.js';
import { isAlive, pollUntil, TestHome } from './_harness/home.js';
import { httpClient, openSession, ownerToken, run, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * Issue 15, the `virtual` backend: the session's private display (Xtigervnc, or Xvfb + x11vnc, and
 * openbox), owned by the session's desktop driver. A GUI program started with `execute` appears
 * in `desktop_screenshot`; `kill -9` of the daemon leaves the driver, its generation and a live
 * observation as they were; the observation rules; `screenshot_capture`; `holdfast kill` leaves
 * nothing behind. Real processes and the official MCP client throughout.
 */
describe('desktop: the virtual backend', () => {
  let h: TestHome;
  let captureX: XServer;
  let adapter: AdapterProcess;
  let c: Client;
  let rs: string;
  let ds: string;
  let log: string;

  const { call, ok } = sessionTools(() => c, () => rs);
  const shot = async (extra: Record<string, unknown> = {}) => ok('desktop_screenshot', { desktop_session_id: ds, ...extra });

  before(async () => {
    // A second display the person allows for screenshot_capture (another one is not allowed).
    captureX = await startXvfb(320, 200);
    h = new TestHome({ desktop: { capture_displays: [captureX.display] } });
    log = join(h.home, 'recorder.log');
    await h.startDaemon();
    adapter = await startAdapter(h);
    c = await httpClient(adapter.url, ownerToken(h), 'legacy');
    rs = (await openSession(c, { workspace: 'ws' })).id;
  });

  after(async () => {
    await c?.close().catch(() => undefined);
    await adapter?.kill9();
    await h?.cleanup();
    await captureX?.stop();
  });

  it('connects the private display; a GUI program started with execute shows in desktop_screenshot', async () => {
    const conn = (await ok('desktop_connect', { alias: 'virtual' })).env;
    ds = conn.data!.desktop_session_id as string;
    const xDisplay = conn.data!.x_display as string;
    assert.match(xDisplay, /^:\d+$/);
    assert.deepEqual(conn.data!.source_size, { width: 1280, height: 800 });
    assert.equal((await run(c, rs, 'echo "$DISPLAY"')).output, xDisplay, 'the session shell got DISPLAY');
    await run(c, rs, `${PYTHON} ${RECORDER} ${log} 400x300+200+150 '#00ff00'`, { background: true });
    await pollUntil('the recorder window', () => recorderEvents(log).some((e) => e.ev === 'ready'), 20_000);
    const seen = await pollUntil('the green window in a screenshot', async () => {
      const s = await shot();
      const box = findColour(await decodePng(s.images[0]!), [0, 255, 0]);
      return box && box.width > 300 && box.height > 200 ? box : null;
    }, 20_000, 100);
    assert.ok(seen.width <= 400 && seen.height <= 300, `window ${seen.width}x${seen.height}`);
  });

  it('keeps the driver pid, the generation and a live observation across kill -9 of the daemon; an action with it still lands', async () => {
    const s = await shot();
    const box = findColour(await decodePng(s.images[0]!), [0, 255, 0])!;
    const obs = s.env.data!.observation_id as string;
    const beforeKill = (await ok('desktop_get_session', { desktop_session_id: ds })).env.data!;
    assert.ok(isAlive(beforeKill.driver_pid as number));

    await h.kill9Daemon();
    // The adapter starts a new daemon by itself on the next call; it re-adopts the guardian.
    const afterKill = await pollUntil('the session after the daemon restart', async () => {
      const r = await call('desktop_get_session', { desktop_session_id: ds });
      return r.isError ? null : r.env.data;
    }, 30_000, 100);
    assert.equal(afterKill.driver_pid, beforeKill.driver_pid, 'same driver process');
    assert.equal(afterKill.generation, beforeKill.generation, 'same RFB connection');
    assert.equal(afterKill.state, 'connected');

    const cx = box.x + Math.floor(box.width / 2);
    const cy = box.y + Math.floor(box.height / 2);
    const r = await ok('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'click', x: cx, y: cy, observe_after: false });
    assert.equal(r.env.data!.outcome, 'submitted');
    const press = await pollUntil('the click in the window', () => recorderEvents(log).find((e) => e.ev === 'press' && e.button === 1));
    assert.ok(Math.abs(press.x! - cx) <= 1 && Math.abs(press.y! - cy) <= 1, `press at (${press.x}, ${press.y}), wanted (${cx}, ${cy})`);

    const oldDaemon = h.daemonPid();
    const restart = await h.cli(['restart-daemon']);
    assert.equal(restart.code, 0, restart.stderr);
    await pollUntil('a new daemon pid', () => h.daemonPid() !== null && h.daemonPid() !== oldDaemon, 15_000);
    const afterRestart = (await pollUntil('the session after restart-daemon', async () => {
      const r2 = await call('desktop_get_session', { desktop_session_id: ds });
      return r2.isError ? null : r2.env.data;
    }, 30_000, 100))!;
    assert.deepEqual([afterRestart.driver_pid, afterRestart.generation], [beforeKill.driver_pid, beforeKill.generation], 'restart-daemon leaves the driver and its connection');
  });

  it('refuses an evicted observation (the 33rd evicts the first) and one from before desktop_select_display', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 33; i++) ids.push((await shot({ max_long_edge: 64 })).env.data!.observation_id as string);
    const move = (obs: string) => call('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'move', x: 1, y: 1, observe_after: false });
    const evicted = await move(ids[0]!);
    assert.equal(evicted.env.error?.code, 'OBSERVATION_EXPIRED');
    assert.match(evicted.env.error!.message, /evicted/);
    assert.equal((await move(ids[1]!)).isError, false, 'the second one is still live');

    const sel = await ok('desktop_select_display', { desktop_session_id: ds, display: 0 });
    assert.ok((sel.env.data!.geometry_epoch as number) > 1);
    const stale = await move(ids[32]!);
    assert.equal(stale.env.error?.code, 'OBSERVATION_EXPIRED');
    assert.equal(stale.env.actions[0]?.tool, 'desktop_screenshot', 'the refusal offers a screenshot');
    const bad = await call('desktop_select_display', { desktop_session_id: ds, display: 3 });
    assert.equal(bad.env.error?.code, 'BAD_REQUEST');
    const live = (await shot({ max_long_edge: 64 })).env.data!.observation_id;
    const fraction = await call('desktop_action', { desktop_session_id: ds, observation_id: live, action: 'click', x: 1.5, y: 2 });
    assert.match(fraction.env.error?.message ?? '', /x must be a whole number/);
    const missing = await call('desktop_action', { desktop_session_id: ds, observation_id: live, action: 'click' });
    assert.match(missing.env.error?.message ?? '', /needs x and y/);
    const outside = await call('desktop_action', { desktop_session_id: ds, observation_id: live, action: 'click', x: 64, y: 1 });
    assert.match(outside.env.error?.message ?? '', /outside the 64x40 image/);
  });

  it('screenshot_capture reads an allowed display and the session desktop, and refuses any other display', async () => {
    const cap = await ok('screenshot_capture', { display: captureX.display, purpose: 'check the capture path' });
    assert.deepEqual(cap.env.data!.source_size, { width: 320, height: 200 });
    assert.equal(cap.images.length, 1);
    const img = await decodePng(cap.images[0]!);
    assert.deepEqual([img.width, img.height], [320, 200]);
    const mine = await ok('screenshot_capture', { desktop_session_id: ds, purpose: 'see my own app', max_long_edge: 640 });
    assert.deepEqual(mine.env.data!.image_size, { width: 640, height: 400 });
    const refused = await call('screenshot_capture', { display: ':9999', purpose: 'not allowed' });
    assert.equal(refused.env.error?.code, 'POLICY_DENIED');
  });

  it('holdfast kill of the session leaves no X server, VNC server, window manager or driver', async () => {
    const mine = () => h.processes().filter((p) => /Xtigervnc|Xvfb|x11vnc|openbox|desktop-driver-/.test(p.cmd));
    assert.ok(mine().some((p) => /desktop-driver-/.test(p.cmd)), 'the driver runs');
    assert.ok(mine().some((p) => /Xtigervnc|Xvfb/.test(p.cmd)), 'the X server runs');
    const r = await h.cli(['kill', rs]);
    assert.equal(r.code, 0, r.stderr);
    await pollUntil('every desktop process to be gone', () => mine().length === 0, 15_000);
  });
});
