/**
 * The desktop panel page (issue 16 §2): pairing (the fragment secret → cookie + CSRF token), the
 * person's device choice, the live view with the agent's pointer, and pause, resume, disconnect.
 * Served by the session's desktop driver on 127.0.0.1 (guardian/src/desktop-driver/panel/); no
 * framework, nothing from any other origin.
 */
import { placePointer, VideoClient, type SessionInfo, type Ticket } from './video-client.js';

interface Device {
  alias: string;
  host: string;
  port: number;
  credential: string;
  authorization: 'view' | 'control';
  auto_connect: boolean;
  paused: boolean;
  desktop_session_id: string | null;
  remote_session_id: string | null;
}

interface ViewInfo {
  view_id: string;
  state: 'waiting' | 'connected' | 'closed';
  device: string | null;
  desktop_session_id: string | null;
}

interface State {
  view: ViewInfo;
  session: SessionInfo | null;
  request: { remote_session_id: string; principal: string; workspace: string } | null;
  devices: Device[] | null;
  daemon_error: string | null;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const viewId = location.pathname.split('/').pop() ?? '';
const CSRF_KEY = `hf-csrf:${location.port}`;
let csrf: string | null = null;
let state: State | null = null;
let video: VideoClient | null = null;
let pointer: { x: number; y: number } | null = null;
let poll: number | null = null;
let devicesShown = '';

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (method === 'POST') {
    headers['Content-Type'] = 'application/json';
    if (csrf) headers['X-CSRF-Token'] = csrf;
  }
  const r = await fetch(path, { method, headers, credentials: 'same-origin', cache: 'no-store', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const data = (await r.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!r.ok) throw new ApiError(r.status, data.error?.code ?? 'ERROR', data.error?.message ?? `HTTP ${r.status}`);
  return data as T;
}

function setStatus(text: string, paused = false): void {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('paused', paused);
}

function showUnpaired(message?: string): void {
  for (const id of ['connect', 'live', 'request']) $(id).hidden = true;
  $('unpaired').hidden = false;
  $('pair-command').textContent = `holdfast desktop pair ${viewId}`;
  setStatus(message ?? 'Not paired');
  if (poll !== null) clearInterval(poll);
  poll = null;
}

/** Pairs with the fragment secret (once), else uses the CSRF token of this tab. */
async function pair(): Promise<boolean> {
  const m = /^#s=([A-Za-z0-9_-]{16,200})$/.exec(location.hash);
  // The secret leaves the address bar (and the history entry) before anything else happens.
  if (location.hash) history.replaceState(null, '', location.pathname);
  if (m) {
    try {
      const r = await call<{ csrf: string }>('POST', '/api/session', { secret: m[1] });
      csrf = r.csrf;
      sessionStorage.setItem(CSRF_KEY, csrf);
      return true;
    } catch (err) {
      showUnpaired((err as Error).message);
      return false;
    }
  }
  csrf = sessionStorage.getItem(CSRF_KEY);
  return true;
}

async function refresh(): Promise<void> {
  try {
    state = await call<State>('GET', `/api/state?view=${encodeURIComponent(viewId)}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return showUnpaired(err.message);
    setStatus(`Cannot reach the desktop driver: ${(err as Error).message}`);
    return;
  }
  render();
}

function render(): void {
  const s = state!;
  const req = s.request;
  const request = $('request');
  request.hidden = false;
  request.textContent = req
    ? `Session ${req.remote_session_id} (principal ${req.principal}, workspace ${req.workspace}) asks for a desktop${s.view.device ? `: it asked for "${s.view.device}"` : ''}.`
    : `View ${s.view.view_id}${s.daemon_error ? ` — ${s.daemon_error}` : ''}`;
  if (s.view.state === 'waiting') {
    $('live').hidden = true;
    $('connect').hidden = false;
    renderDevices(s.devices ?? [], s.view.device);
    setStatus(s.daemon_error ? 'holdfastd is not reachable: connecting needs it' : 'Waiting for you to pick a desktop');
    return;
  }
  $('connect').hidden = true;
  if (s.view.state === 'closed' && !s.session) {
    $('live').hidden = true;
    setStatus('This request was closed; no desktop was connected.');
    stopPolling();
    return;
  }
  if (s.session) showSession(s.session);
  if (s.view.state === 'connected' && !video && s.session?.state !== 'closed') startVideo();
  if (s.session?.state === 'closed') stopPolling();
}

function renderDevices(devices: Device[], wanted: string | null): void {
  const key = JSON.stringify(devices.map((d) => [d.alias, d.host, d.port, d.authorization, d.auto_connect, d.desktop_session_id]));
  if (key === devicesShown) return;
  devicesShown = key;
  const box = $('devices');
  box.textContent = '';
  const add = (value: string, text: string): void => {
    const label = document.createElement('label');
    label.className = 'choice';
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = 'device';
    input.value = value;
    input.checked = value === (wanted ?? '');
    label.append(input, ` ${text}`);
    box.append(label);
  };
  for (const d of devices) {
    const flags = [d.authorization === 'control' ? 'control' : 'view only', d.auto_connect ? 'auto-connect' : null, d.credential === 'keyring' ? 'password in keyring' : null, d.desktop_session_id ? 'in use' : null];
    add(d.alias, `${d.alias} — ${d.host}:${d.port} (${flags.filter(Boolean).join(', ')})`);
  }
  add('virtual', "virtual — this session's private display");
  const anyChecked = box.querySelector<HTMLInputElement>('input:checked');
  ($('typed-choice') as HTMLInputElement).checked = !anyChecked;
  syncForm();
}

function selectedDevice(): string {
  return document.querySelector<HTMLInputElement>('input[name="device"]:checked')?.value ?? '';
}

function syncForm(): void {
  const typed = selectedDevice() === '';
  $('typed').hidden = !typed;
  const save = ($('save') as HTMLInputElement).checked;
  for (const id of ['remember', 'auto']) {
    const box = $(id) as HTMLInputElement;
    box.disabled = !save;
    if (!save) box.checked = false;
  }
  const alias = $('alias') as HTMLInputElement;
  alias.disabled = !save;
  if (save && !alias.value) alias.value = typed ? ($('host') as HTMLInputElement).value.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64) : selectedDevice();
}

async function connect(ev: Event): Promise<void> {
  ev.preventDefault();
  const err = $('form-error');
  err.textContent = '';
  const device = selectedDevice();
  const save = ($('save') as HTMLInputElement).checked;
  const password = $('password') as HTMLInputElement;
  const body: Record<string, unknown> = {
    view_id: viewId,
    authorization: document.querySelector<HTMLInputElement>('input[name="grant"]:checked')?.value ?? 'view',
    save,
    remember_password: ($('remember') as HTMLInputElement).checked,
    auto_connect: ($('auto') as HTMLInputElement).checked,
  };
  if (save) body.alias = ($('alias') as HTMLInputElement).value.trim();
  if (device) body.device = device;
  else {
    body.host = ($('host') as HTMLInputElement).value.trim();
    body.port = Number(($('port') as HTMLInputElement).value.trim() || '5900');
  }
  if (password.value) body.password = password.value;
  const button = $('connect-button') as HTMLButtonElement;
  button.disabled = true;
  setStatus('Connecting…');
  try {
    await call('POST', '/api/connect', body);
    password.value = '';
    await refresh();
  } catch (e) {
    err.textContent = (e as Error).message;
    setStatus('Not connected');
  } finally {
    button.disabled = false;
  }
}

function showSession(s: SessionInfo): void {
  $('live').hidden = false;
  const paused = s.paused && s.state !== 'closed';
  if (s.state === 'closed') setStatus(`Disconnected (${s.closed_reason ?? 'closed'})`);
  else if (s.state === 'reconnecting') setStatus(`Reconnecting to ${s.device}…`);
  else if (paused) setStatus(`PAUSED — the agent's input on ${s.device} is refused until you resume`, true);
  else setStatus(`Connected to ${s.device} — ${s.authorization === 'view' ? 'view only' : s.control_enabled ? 'the agent may control it' : 'the agent turned its control off'}`);
  $('pause').hidden = paused || s.state === 'closed';
  $('resume').hidden = !paused;
  $('disconnect').hidden = s.state === 'closed';
  const device = state?.devices?.find((d) => d.alias === s.device);
  const rows: [string, string][] = [
    ['Device', s.device + (s.x_display ? ` (${s.x_display})` : '')],
    ['Address', device ? `${device.host}:${device.port}` : s.backend === 'virtual' ? "this session's private display" : '—'],
    ['Grant', s.authorization === 'control' ? 'the agent may control it' : 'view only'],
    ['Agent control', s.authorization === 'view' ? 'not granted' : s.control_enabled ? 'on' : 'off (the agent turned it off)'],
    ['Size', s.source_size ? `${s.source_size.width}×${s.source_size.height}` : '—'],
    ['Connection', `generation ${s.generation}${s.last_error ? ` — ${s.last_error}` : ''}`],
    ['Desktop session', s.desktop_session_id],
  ];
  const dl = $('details');
  dl.textContent = '';
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dl.append(dt, dd);
  }
  if (state) state.session = s;
  drawPointer();
}

function drawPointer(): void {
  placePointer($('pointer'), $('screen') as HTMLCanvasElement, pointer, !state?.session || state.session.paused);
}

function startVideo(): void {
  video = new VideoClient($('screen') as HTMLCanvasElement, () => call<Ticket>('POST', '/api/ticket', { view_id: viewId }), {
    state: (s) => showSession(s),
    pointer: (p) => {
      pointer = p;
      drawPointer();
    },
    ended: (code, reason) => {
      video = null;
      if (code === 4000) void refresh();
      else $('live-error').textContent = `video stopped: ${reason || code}`;
    },
  });
  void video.start();
}

function stopPolling(): void {
  if (poll !== null) clearInterval(poll);
  poll = null;
}

async function act(action: 'pause' | 'resume' | 'disconnect'): Promise<void> {
  const id = state?.session?.desktop_session_id;
  if (!id) return;
  $('live-error').textContent = '';
  try {
    const r = await call<{ session?: SessionInfo; warning?: string }>('POST', `/api/${action}`, { desktop_session_id: id });
    if (r.session) showSession(r.session);
    if (r.warning) $('live-error').textContent = r.warning;
  } catch (err) {
    $('live-error').textContent = (err as Error).message;
  }
}

function setLarge(on: boolean): void {
  document.body.classList.toggle('large', on);
  $('larger').setAttribute('aria-pressed', String(on));
  $('larger').textContent = on ? 'Normal view (Esc)' : 'Larger view';
  drawPointer();
}

async function main(): Promise<void> {
  $('connect').addEventListener('submit', (ev) => void connect(ev));
  $('connect').addEventListener('change', syncForm);
  $('decline').addEventListener('click', () => void call('POST', '/api/decline', { view_id: viewId }).then(refresh, (e: Error) => ($('form-error').textContent = e.message)));
  $('pause').addEventListener('click', () => void act('pause'));
  $('resume').addEventListener('click', () => void act('resume'));
  $('disconnect').addEventListener('click', () => void act('disconnect'));
  $('larger').addEventListener('click', () => setLarge(!document.body.classList.contains('large')));
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') setLarge(false);
  });
  window.addEventListener('resize', drawPointer);
  if (!(await pair())) return;
  await refresh();
  poll = window.setInterval(() => {
    if (!video || state?.view.state !== 'connected') void refresh();
  }, 2000);
}

void main();
