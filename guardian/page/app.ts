/**
 * The MCP Apps view of the desktop tools (issue 16 §6; `ui://holdfast/desktop.html`, MCP Apps
 * extension SEP-1865). Rendered by the client in its sandbox for `desktop_open`: it speaks the
 * View side of the extension's JSON-RPC over `postMessage` (`ui/initialize`, then tool input and
 * result notifications), reports ready by reading its view resource
 * (`holdfast://remote-sessions/{rs}/desktop-views/{view_id}`: it confirms the view and, once a
 * desktop is connected, gives a one-time video ticket), and shows the live video straight from the
 * session's desktop driver on 127.0.0.1 — the video never passes through the client or MCP.
 *
 * What it does not do: pick or connect a desktop, pause or resume. Those need the person's own
 * browser page or terminal (`holdfast desktop pair <view_id>`), because anything the app can call
 * the model might call too. "Open in my browser" calls `desktop_open_browser`.
 */
import { placePointer, VideoClient, type SessionInfo, type Ticket } from './video-client.js';

type Json = Record<string, unknown>;
interface ToolResult {
  structuredContent?: { status?: string; data?: Json; context?: Json; error?: { message?: string } };
  isError?: boolean;
}

/** The view resource's JSON (daemon/src/desktop/desktop-panel.ts `AppViewState`). */
interface ViewState {
  view: { state: string };
  session: SessionInfo | null;
  ticket: Ticket | null;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const PROTOCOL_VERSION = '2026-01-26';
let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let target: { rs: string; view: string } | null = null;
let video: VideoClient | null = null;
let session: SessionInfo | null = null;
let pointer: { x: number; y: number } | null = null;

function post(m: Json): void {
  window.parent.postMessage({ jsonrpc: '2.0', ...m }, '*');
}

function request<T>(method: string, params: Json): Promise<T> {
  const id = nextId++;
  post({ id, method, params });
  return new Promise<T>((resolve, reject) => pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
}

function callTool(name: string, args: Json): Promise<ToolResult> {
  return request<ToolResult>('tools/call', { name, arguments: args });
}

function setStatus(text: string, paused = false): void {
  $('status').textContent = text;
  $('status').classList.toggle('paused', paused);
}

window.addEventListener('message', (ev: MessageEvent) => {
  if (ev.source !== window.parent) return;
  const m = ev.data as { id?: number; method?: string; params?: Json; result?: unknown; error?: { message?: string } };
  if (!m || typeof m !== 'object') return;
  if (m.id !== undefined && pending.has(m.id) && m.method === undefined) {
    const p = pending.get(m.id)!;
    pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error.message ?? 'error'));
    else p.resolve(m.result);
    return;
  }
  if (m.method === 'ui/notifications/tool-result') void onToolResult(m.params as ToolResult);
  else if (m.method === 'ui/resource-teardown' && m.id !== undefined) {
    video?.stop();
    post({ id: m.id, result: {} });
  } else if (m.id !== undefined && m.method) post({ id: m.id, error: { code: -32601, message: `${m.method} is not handled by this view` } });
});

async function onToolResult(r: ToolResult): Promise<void> {
  const data = r.structuredContent?.data ?? {};
  const rs = r.structuredContent?.context?.remote_session_id;
  const view = data.view_id;
  if (typeof rs !== 'string' || typeof view !== 'string') {
    setStatus(r.structuredContent?.error?.message ?? 'No desktop view in this result.');
    return;
  }
  if (target) return;
  target = { rs, view };
  $('browser').hidden = false;
  $('hint').textContent = `To pick a desktop, run \`holdfast desktop pair ${view}\` in your terminal, or open this view in your browser (to pause or resume the agent, too).`;
  await readView().then(follow, (e: Error) => setStatus(e.message));
}

/** Reads the view resource (the first read reports the view as displayed). */
async function readView(): Promise<ViewState> {
  const uri = `holdfast://remote-sessions/${target!.rs}/desktop-views/${target!.view}`;
  const r = await request<{ contents: { text?: string }[] }>('resources/read', { uri });
  return JSON.parse(r.contents[0]?.text ?? '{}') as ViewState;
}

/** Starts the video once a ticket comes, else reads the view again every 2 s while the person has not connected. */
function follow(st: ViewState): void {
  const ticket = st.ticket;
  if (st.view?.state === 'closed') return setStatus('The person closed this request.');
  if (!ticket) {
    setStatus('Waiting for the person to connect a desktop…');
    setTimeout(() => void readView().then(follow, (e: Error) => setStatus(e.message)), 2000);
    return;
  }
  if (video) return;
  let first: Ticket | null = ticket;
  $('stage').hidden = false;
  video = new VideoClient(
    $('screen') as HTMLCanvasElement,
    async () => {
      if (first) {
        const t = first;
        first = null;
        return t;
      }
      const again = (await readView()).ticket;
      if (!again) throw new Error('the desktop is no longer connected');
      return again;
    },
    {
      state: (s) => {
        session = s;
        const paused = s.paused && s.state !== 'closed';
        if (s.state === 'closed') setStatus(`Disconnected (${s.closed_reason ?? 'closed'})`);
        else if (paused) setStatus(`PAUSED — the agent's input on ${s.device} is refused until the person resumes`, true);
        else setStatus(`Connected to ${s.device} — ${s.authorization === 'view' ? 'view only' : s.control_enabled ? 'the agent may control it' : 'the agent turned its control off'}`);
        drawPointer();
      },
      pointer: (p) => {
        pointer = p;
        drawPointer();
      },
      ended: (code, reason) => {
        video = null;
        if (code !== 4000) $('hint').textContent = `Live video unavailable here (${reason || code}); use "Open in my browser".`;
      },
    },
  );
  void video.start();
}

function drawPointer(): void {
  placePointer($('pointer'), $('screen') as HTMLCanvasElement, pointer, !session || session.paused);
}

async function main(): Promise<void> {
  $('browser').addEventListener('click', () => {
    if (target) void callTool('desktop_open_browser', { remote_session_id: target.rs, view_id: target.view }).then((r) => ($('hint').textContent = r.isError ? (r.structuredContent?.error?.message ?? 'no browser') : 'Opened in your browser.'));
  });
  await request('ui/initialize', { appInfo: { name: 'holdfast-desktop', version: '1' }, appCapabilities: { availableDisplayModes: ['inline'] }, protocolVersion: PROTOCOL_VERSION });
  post({ method: 'ui/notifications/initialized', params: {} });
}

void main();
