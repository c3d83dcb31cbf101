import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import {
  decodePng,
  grepTree,
  recorderEvents,
  sessionTools,
  startRecorder,
  startSecretService,
  startX11vnc,
  startXvfb,
  stopChild,
  storeVncPassword,
  typedText,
  type SecretService,
  type VncServer,
  type XServer,
} from './_harness/desktop.js';
import { CLI_MAIN, pollUntil, TestHome } from './_harness/home.js';
import { callTool, httpClient, openSession, ownerToken, startAdapter, type AdapterProcess, type Envelope } from './_harness/mcp-adapter.js';

/**
 * Issue 15 on a VNC device: a real Xvfb (1920×1080) with x11vnc asking for a password that holdfast
 * reads from a real Secret Service (gnome-keyring on a private D-Bus), a recorder window, the
 * real `holdfast` CLI for the person's commands and the official MCP client for the agent's.
 */
describe('desktop: a VNC device with a keyring password', () => {
  const password = `hf-vnc-${randomBytes(4).toString('hex')}`;
  const h = new TestHome();
  const log = join(h.home, 'recorder.log');
  let ss: SecretService;
  let x: XServer;
  let vnc: VncServer;
  let recorder: ChildProcess;
  let adapter: AdapterProcess;
  let c: Client;
  let rs: string;
  let ds: string;

  const tools = sessionTools(() => c, () => rs);
  const call = tools.call;
  const ok = async (name: string, args: Record<string, unknown>): Promise<Envelope> => (await tools.ok(name, args)).env;
  const screenshot = async (extra: Record<string, unknown> = {}): Promise<{ env: Envelope; image: string }> => {
    const r = await call('desktop_screenshot', { desktop_session_id: ds, ...extra });
    assert.equal(r.isError, false, JSON.stringify(r.env.error));
    assert.equal(r.images.length, 1, 'one PNG image content');
    return { env: r.env, image: r.images[0]! };
  };
  const obsId = (e: Envelope): string => e.data!.observation_id as string;
  const events = (): ReturnType<typeof recorderEvents> => recorderEvents(log);
  const person = async (args: string[], input?: string): Promise<string> => {
    const r = await h.cli(args, input === undefined ? {} : { input });
    assert.equal(r.code, 0, `holdfast ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  before(async () => {
    ss = await startSecretService(h.userHome);
    x = await startXvfb(1920, 1080);
    const pwFile = join(h.home, 'vnc.passwd');
    storeVncPassword(password, pwFile);
    vnc = await startX11vnc(x.display, { passwordFile: pwFile });
    recorder = await startRecorder(x.env, log, '1920x1080+0+0');
    await h.startDaemon(ss.env);
    await person(['desktop', 'device', 'add', 'lab', '--host', '127.0.0.1', '--port', String(vnc.port), '--credential', 'keyring', '--authorization', 'control', '--auto-connect', '--password-stdin'], `${password}\n`);
    adapter = await startAdapter(h, ['--session-affinity', 'thread'], ss.env);
    c = await httpClient(adapter.url, ownerToken(h), 'legacy');
    rs = (await openSession(c, { workspace: 'ws' })).id;
  });

  after(async () => {
    await c?.close().catch(() => undefined);
    await adapter?.kill9();
    await h.cleanup();
    if (recorder) await stopChild(recorder);
    await vnc?.stop();
    await x?.stop();
    await ss?.stop();
  });

  it('keeps the password in the keyring only, connects with it, and lands a click from a 1280-wide screenshot of 1920×1080 on the source pixel (±1)', async () => {
    assert.deepEqual(grepTree(h.home, password), [], 'the password is in no file of HOLDFAST_HOME');
    const listed = await ok('desktop_list_devices', {});
    assert.deepEqual((listed.data!.devices as { alias: string; state: string }[]).map((d) => [d.alias, d.state]), [['lab', 'free']]);
    const conn = await ok('desktop_connect', { alias: 'lab' });
    ds = conn.data!.desktop_session_id as string;
    assert.match(ds, /^ds_/);
    assert.equal(conn.data!.state, 'connected');
    assert.deepEqual(conn.data!.source_size, { width: 1920, height: 1080 });

    // x11vnc scrapes the X screen on its own schedule: the first frame after connecting may
    // predate the recorder window's first paint, so look again until it shows (with a deadline).
    let seen: number[] = [];
    const shot = await pollUntil('the recorder window (magenta) in a screenshot', async () => {
      const s = await screenshot();
      assert.deepEqual(s.env.data!.image_size, { width: 1280, height: 720 });
      assert.deepEqual(s.env.data!.source_size, { width: 1920, height: 1080 });
      const png = await decodePng(s.image);
      assert.deepEqual([png.width, png.height], [1280, 720]);
      seen = [...png.data.subarray((300 * 1280 + 600) * 3, (300 * 1280 + 600) * 3 + 3)];
      return seen.join() === '255,0,255' ? s : undefined;
    }, 20_000, 200).catch((err: Error) => {
      throw new Error(`${err.message}; last pixel ${seen.join()}`);
    });

    const target = { x: 1235, y: 567 };
    const ix = Math.round((target.x * 1280) / 1920);
    const iy = Math.round((target.y * 720) / 1080);
    const clicked = await ok('desktop_action', { desktop_session_id: ds, observation_id: obsId(shot.env), action: 'click', x: ix, y: iy, observe_after: false });
    assert.equal(clicked.data!.outcome, 'submitted');
    const press = await pollUntil('the click in the recorder', () => events().find((e) => e.ev === 'press' && e.button === 1));
    assert.ok(Math.abs(press.x! - target.x) <= 1 && Math.abs(press.y! - target.y) <= 1, `press at (${press.x}, ${press.y}), wanted (${target.x}, ${target.y}) ±1`);
  });

  it('types "héllo 名前" intact, and hotkey CTRL+A, scroll and drag arrive', async () => {
    const obs = obsId((await screenshot({ max_long_edge: 960 })).env);
    const typed = await ok('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'type_text', text: 'héllo 名前', observe_after: false });
    assert.equal(typed.data!.outcome, 'submitted');
    await pollUntil('the typed text', () => typedText(events()).endsWith('héllo 名前'));

    await ok('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'hotkey', keys: ['CTRL', 'A'], observe_after: false });
    await pollUntil('ctrl+a', () => events().some((e) => e.ev === 'hotkey' && e.combo === 'ctrl+a'));

    await ok('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'scroll', x: 400, y: 300, dy: 3, observe_after: false });
    await pollUntil('three notches down', () => events().filter((e) => e.ev === 'scroll' && e.dir === 'down').length === 3);

    // The screenshot is 960 wide: scale 2 from image to source.
    const dragged = await ok('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'drag', x: 100, y: 100, to_x: 300, to_y: 200 });
    assert.ok(dragged.data!.observation, 'observe_after adds a fresh observation');
    const drag = await pollUntil('the drag', () => events().find((e) => e.ev === 'drag'));
    assert.deepEqual([drag.from, drag.to], [[201, 201], [601, 401]]);
    assert.ok(drag.moves! > 3, `pointer moves while dragging (${drag.moves})`);
  });

  it('answers a repeated operation_id with the first outcome without a second click, and refuses it with other coordinates', async () => {
    const obs = obsId((await screenshot()).env);
    const presses = (): number => events().filter((e) => e.ev === 'press' && e.button === 1).length;
    const before = presses();
    const args = { desktop_session_id: ds, observation_id: obs, action: 'click', x: 500, y: 500, operation_id: 'op-click-1', observe_after: false };
    const first = await ok('desktop_action', args);
    await pollUntil('the first click', () => presses() === before + 1);
    const again = await ok('desktop_action', args);
    assert.equal(again.data!.replayed, true);
    assert.equal(again.data!.outcome, first.data!.outcome);
    const conflict = await call('desktop_action', { ...args, x: 501 });
    assert.equal(conflict.env.error?.code, 'IDEMPOTENCY_CONFLICT');
    // A later click proves the repeat sent nothing: exactly one more press arrives, at its place.
    await ok('desktop_action', { ...args, operation_id: 'op-click-2', x: 100, y: 100 });
    await pollUntil('the sentinel click', () => events().filter((e) => e.ev === 'press' && e.button === 1).at(-1)?.x === 150);
    assert.equal(presses(), before + 2, 'the repeated operation_id clicked nothing');
  });

  it('refuses input and set_control(true) while the person has paused the agent, until they resume', async () => {
    const obs = obsId((await screenshot()).env);
    assert.match(await person(['desktop', 'pause', ds]), /paused device:lab/);
    const refused = await call('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'click', x: 10, y: 10, observe_after: false });
    assert.equal(refused.env.error?.code, 'DESKTOP_PAUSED');
    const lift = await call('desktop_set_control', { desktop_session_id: ds, enabled: true });
    assert.equal(lift.env.error?.code, 'DESKTOP_PAUSED');
    assert.equal((await ok('desktop_get_session', { desktop_session_id: ds })).data!.paused, true);
    await person(['desktop', 'resume', 'lab']);
    await ok('desktop_set_control', { desktop_session_id: ds, enabled: true });
    const again = await ok('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'move', x: 10, y: 10, observe_after: false });
    assert.equal(again.data!.outcome, 'submitted');
  });

  it('holds one agent connection per device; a view device refuses every action; a device without auto-connect waits for the person, who can also close it', async () => {
    const other = (await openSession(c, { workspace: 'ws' })).id;
    assert.notEqual(other, rs);
    const asOther = async (name: string, args: Record<string, unknown>) => callTool(c, name, { remote_session_id: other, ...args });
    const busy = await asOther('desktop_connect', { alias: 'lab' });
    assert.equal(busy.env.error?.code, 'DEVICE_BUSY');

    await person(['desktop', 'device', 'add', 'lab-view', '--host', '127.0.0.1', '--port', String(vnc.port), '--credential', 'keyring', '--authorization', 'view', '--auto-connect', '--password-stdin'], `${password}\n`);
    const viewConn = await asOther('desktop_connect', { alias: 'lab-view' });
    assert.equal(viewConn.isError, false, JSON.stringify(viewConn.env.error));
    const vds = viewConn.env.data!.desktop_session_id as string;
    const vshot = await asOther('desktop_screenshot', { desktop_session_id: vds });
    assert.equal(vshot.isError, false, 'a view device shows its screen');
    for (const a of [{ action: 'click', x: 5, y: 5 }, { action: 'type_text', text: 'x' }, { action: 'key_press', key: 'ENTER' }]) {
      const r = await asOther('desktop_action', { desktop_session_id: vds, observation_id: vshot.env.data!.observation_id, observe_after: false, ...a });
      assert.equal(r.env.error?.code, 'CONTROL_NOT_GRANTED', `${a.action} on a view device`);
    }
    assert.equal((await asOther('desktop_set_control', { desktop_session_id: vds, enabled: true })).env.error?.code, 'CONTROL_NOT_GRANTED');
    assert.equal((await asOther('desktop_disconnect', { desktop_session_id: vds })).env.data!.state, 'closed');

    await person(['desktop', 'device', 'add', 'lab-ask', '--host', '127.0.0.1', '--port', String(vnc.port), '--credential', 'keyring', '--authorization', 'control', '--password-stdin'], `${password}\n`);
    const waiting = await asOther('desktop_connect', { alias: 'lab-ask' });
    assert.equal(waiting.env.status, 'waiting_confirmation');
    const viewId = waiting.env.data!.view_id as string;
    assert.equal(waiting.env.data!.pairing_command, `holdfast desktop pair ${viewId}`);
    const early = await asOther('desktop_get_session', { view_id: viewId, wait_ms: 0 });
    assert.equal(early.env.data!.wait_timed_out, true);
    const pending = asOther('desktop_get_session', { view_id: viewId, wait_ms: 20_000 });
    await person(['desktop', 'pair', viewId, '--yes']);
    const paired = await pending;
    assert.equal(paired.env.data!.state, 'connected');
    const askDs = (paired.env.data!.session as { device: string; desktop_session_id: string }).desktop_session_id;
    assert.equal((paired.env.data!.session as { device: string }).device, 'lab-ask');
    await person(['desktop', 'disconnect', askDs]);
    const closed = await asOther('desktop_get_session', { desktop_session_id: askDs });
    assert.deepEqual([closed.env.data!.state, closed.env.data!.closed_reason], ['closed', 'closed_by_person']);
    assert.equal((await asOther('desktop_screenshot', { desktop_session_id: askDs })).env.error?.code, 'DESKTOP_NOT_FOUND', 'a closed session is not reconnected');

    const declined = await asOther('desktop_open', {});
    await person(['desktop', 'pair', declined.env.data!.view_id as string, '--close']);
    assert.equal((await asOther('desktop_get_session', { view_id: declined.env.data!.view_id, wait_ms: 0 })).env.data!.state, 'closed');
  });

  it('answers outcome_unknown when the VNC server dies mid-action, and never replays it after the server is back', async () => {
    const obs = obsId((await screenshot()).env);
    const xs = (): number => [...typedText(events())].filter((ch) => ch === 'q').length;
    const args = { desktop_session_id: ds, observation_id: obs, action: 'type_text', text: 'q'.repeat(1500), operation_id: 'op-typing', observe_after: false };
    const typing = call('desktop_action', args);
    await pollUntil('typing to start', () => xs() >= 20, 20_000, 10);
    const port = vnc.port;
    vnc.child.kill('SIGKILL');
    const r = await typing;
    assert.equal(r.isError, false, JSON.stringify(r.env.error));
    assert.equal(r.env.status, 'interrupted');
    assert.equal(r.env.data!.outcome, 'outcome_unknown');
    assert.equal(r.env.data!.side_effect_possible, true);
    const arrived = xs();
    assert.ok(arrived < 1500, `the typing was cut short (${arrived} arrived)`);

    const pwFile = join(h.home, 'vnc.passwd');
    vnc = await startX11vnc(x.display, { passwordFile: pwFile, port });
    const back = await pollUntil('the desktop to reconnect', async () => {
      const s = await call('desktop_get_session', { desktop_session_id: ds });
      return s.env.data?.state === 'connected' && (s.env.data.generation as number) >= 2 ? s.env : null;
    }, 30_000, 100);
    assert.ok((back.data!.geometry_epoch as number) > 1);
    const stale = await call('desktop_action', { desktop_session_id: ds, observation_id: obs, action: 'click', x: 1, y: 1, observe_after: false });
    assert.equal(stale.env.error?.code, 'OBSERVATION_EXPIRED', 'a reconnect ends every observation');
    assert.equal(stale.env.actions[0]?.tool, 'desktop_screenshot');

    const repeat = await call('desktop_action', args);
    assert.equal(repeat.env.data!.outcome, 'outcome_unknown');
    assert.equal(repeat.env.data!.replayed, true);
    const fresh = obsId((await screenshot()).env);
    await ok('desktop_action', { desktop_session_id: ds, observation_id: fresh, action: 'type_text', text: 'Z', observe_after: false });
    await pollUntil('the sentinel Z', () => typedText(events()).endsWith('Z'));
    assert.equal(xs(), arrived, 'nothing of the interrupted typing was sent again');
  });

  it('asks the password in a terminal without echoing it (device add under tmux)', async () => {
    const tmux = (args: string[]): Promise<string> => h.tmux(args);
    const add = `${process.execPath} ${CLI_MAIN} desktop device add lab-tty --host 127.0.0.1 --port ${vnc.port} --credential keyring --authorization control --auto-connect`;
    await tmux(['new-session', '-d', '-x', '160', '-y', '20', `${add}; echo EXIT=$?; sleep 60`]);
    try {
      await pollUntil('the password prompt', async () => (await tmux(['capture-pane', '-p'])).includes('VNC password for lab-tty (not shown):'));
      await tmux(['send-keys', '-l', password]);
      await tmux(['send-keys', 'Enter']);
      const pane = await pollUntil('device add to finish', async () => {
        const text = await tmux(['capture-pane', '-p']);
        return /EXIT=\d+/.test(text) ? text : null;
      });
      assert.match(pane, /EXIT=0/);
      assert.ok(!pane.includes(password), 'the password was not echoed');
    } finally {
      await tmux(['kill-server']).catch(() => undefined);
    }
    const other = (await openSession(c, { workspace: 'ws' })).id;
    const conn = await callTool(c, 'desktop_connect', { remote_session_id: other, alias: 'lab-tty' });
    assert.equal(conn.env.data?.state, 'connected', `the typed password works: ${JSON.stringify(conn.env.error)}`);
    await callTool(c, 'desktop_disconnect', { remote_session_id: other, desktop_session_id: conn.env.data!.desktop_session_id });
  });

  it('disconnect releases the device', async () => {
    const r = await ok('desktop_disconnect', { desktop_session_id: ds });
    assert.equal(r.data!.state, 'closed');
    assert.equal((await ok('desktop_get_session', { desktop_session_id: ds })).data!.state, 'closed');
    const devices = (await ok('desktop_list_devices', {})).data!.devices as { alias: string; state: string }[];
    assert.equal(devices.find((d) => d.alias === 'lab')!.state, 'free');
  });
});

describe('desktop: no Secret Service', () => {
  const h = new TestHome();
  const started = Date.now();
  before(() => h.startDaemon({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(h.home, 'no-bus')}` }));
  after(() => h.cleanup());

  it('refuses device add --credential keyring with KEYRING_UNAVAILABLE and writes the password nowhere', async () => {
    const secret = `hf-never-${randomBytes(6).toString('hex')}`;
    const r = await h.cli(['desktop', 'device', 'add', 'box', '--host', '127.0.0.1', '--port', '5901', '--credential', 'keyring', '--authorization', 'control', '--password-stdin'], { input: `${secret}\n` });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /KEYRING_UNAVAILABLE/);
    assert.match(r.stderr, /never stores passwords in plaintext/);
    const list = await h.cli(['desktop', 'device', 'list', '--json']);
    assert.deepEqual(JSON.parse(list.stdout), [], 'no device row was written');
    await h.client().call('daemon.status', {}); // the daemon has flushed what it writes
    assert.deepEqual(grepTree(h.home, secret), [], 'not in HOLDFAST_HOME or HOME');
    assert.deepEqual(grepTree('/tmp', secret, [], started), [], 'not in /tmp');
  });
});
