/**
 * The video socket's browser side (issue 16 §3), shared by the panel page and the MCP Apps view:
 * opens the socket, sends the one-time ticket as the first message, draws each JPEG frame at its
 * place on the canvas (sized to the desktop's framebuffer) and acknowledges it — the driver sends
 * the next frame only then, so a busy tab never makes the driver queue anything.
 *
 * Text messages: `hello` (size and desktop session), `size`, `state` (desktop session), `pointer`
 * (the agent's last pointer position or null). Close codes: 4000 the desktop session closed,
 * 4401 bad ticket, 4409 the desktop reconnected (a new ticket is fetched), 4429 too many viewers,
 * 4508 too slow.
 */

/** What the video socket reports about a desktop session (a subset of the driver's view). */
export interface SessionInfo {
  desktop_session_id: string;
  device: string;
  backend: string;
  state: string;
  closed_reason: string | null;
  authorization: 'view' | 'control';
  control_enabled: boolean;
  paused: boolean;
  generation: number;
  source_size: { width: number; height: number } | null;
  x_display: string | null;
  last_error: string | null;
}

export interface Ticket {
  ws_url: string;
  ticket: string;
}

export interface VideoEvents {
  state(s: SessionInfo): void;
  pointer(p: { x: number; y: number } | null): void;
  /** The socket ended for good (code and reason); the caller may start again. */
  ended(code: number, reason: string): void;
}

const HEADER_BYTES = 16;
const JPEG = 1;

export class VideoClient {
  private ws: WebSocket | null = null;
  private stopped = false;
  private retryMs = 250;
  /** Frames drawn so far (tests and the bench read it). */
  frames = 0;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly getTicket: () => Promise<Ticket>,
    private readonly on: VideoEvents,
  ) {}

  /** Connects (again). */
  async start(): Promise<void> {
    this.stopped = false;
    let t: Ticket;
    try {
      t = await this.getTicket();
    } catch (err) {
      this.on.ended(0, (err as Error).message);
      return;
    }
    const ws = new WebSocket(t.ws_url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ ticket: t.ticket }));
    ws.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data === 'string') this.onText(ev.data);
      else void this.onFrame(ws, ev.data as ArrayBuffer);
    };
    ws.onclose = (ev: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (ev.code === 4409 || ev.code === 1006 || ev.code === 1001) {
        // Reconnected desktop (new generation) or a dropped socket: a fresh ticket, with back-off.
        setTimeout(() => void this.start(), ev.code === 4409 ? 0 : this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, 5000);
        return;
      }
      this.on.ended(ev.code, ev.reason);
    };
  }

  /** Stops watching (the desktop connection stays). */
  stop(): void {
    this.stopped = true;
    this.ws?.close(1000, 'closed by the viewer');
    this.ws = null;
  }

  private onText(text: string): void {
    const m = JSON.parse(text) as { t: string; width?: number; height?: number; session?: SessionInfo; p?: { x: number; y: number } | null };
    if (m.t === 'hello' || m.t === 'size') {
      this.retryMs = 250;
      if (m.width && m.height && (this.canvas.width !== m.width || this.canvas.height !== m.height)) {
        this.canvas.width = m.width;
        this.canvas.height = m.height;
      }
      if (m.t === 'size') this.on.pointer(null);
    }
    if (m.session) this.on.state(m.session);
    if (m.t === 'pointer') this.on.pointer(m.p ?? null);
  }

  private async onFrame(ws: WebSocket, buf: ArrayBuffer): Promise<void> {
    const v = new DataView(buf);
    const format = v.getUint8(0);
    const seq = v.getUint32(4);
    const x = v.getUint16(8);
    const y = v.getUint16(10);
    if (format === JPEG) {
      const bmp = await createImageBitmap(new Blob([new Uint8Array(buf, HEADER_BYTES)], { type: 'image/jpeg' }));
      this.canvas.getContext('2d')!.drawImage(bmp, x, y);
      bmp.close();
    }
    this.frames++;
    this.canvas.dispatchEvent(new CustomEvent('hf-frame', { detail: { seq, at: Date.now(), bytes: buf.byteLength } }));
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: 'ack', seq }));
  }
}

/** Places the pointer marker over the canvas at framebuffer pixel `p` (hidden when null or paused). */
export function placePointer(marker: HTMLElement, canvas: HTMLCanvasElement, p: { x: number; y: number } | null, paused: boolean): void {
  if (!p || paused || canvas.width === 0) {
    marker.hidden = true;
    return;
  }
  const r = canvas.getBoundingClientRect();
  // The marker's parent is the positioned stage (offsetParent is null while the marker is hidden).
  const parent = marker.parentElement?.getBoundingClientRect() ?? { left: 0, top: 0 };
  marker.style.left = `${r.left - parent.left + (p.x / canvas.width) * r.width}px`;
  marker.style.top = `${r.top - parent.top + (p.y / canvas.height) * r.height}px`;
  marker.hidden = false;
}
