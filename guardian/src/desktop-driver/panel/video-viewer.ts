import { PanelLimits, type Rect, type Size, type ViewerStatus } from '@holdfast/shared/protocol';
import type { WebSocket } from 'ws';
import { log } from '../../log.js';
import type { DesktopSession } from '../desktop-session.js';
import type { FrameUpdate } from '../framebuffer.js';
import { encodeJpeg, FrameFormat, frameHeader, scaleRgb, unionRect } from './frame-encoder.js';

/** WebSocket close codes the panel uses (4000–4999 are the application's). */
export const ViewerClose = {
  /** The desktop session closed. */
  SESSION_CLOSED: 4000,
  /** No valid ticket as the first message. */
  BAD_TICKET: 4401,
  /** The desktop reconnected (generation + 1): get a new ticket. */
  GENERATION_CHANGED: 4409,
  /** {@link PanelLimits.MAX_VIEWERS_PER_SESSION} are watching already. */
  TOO_MANY_VIEWERS: 4429,
  /** The socket held more than {@link PanelLimits.MAX_BUFFERED_BYTES} unsent (the viewer stopped reading). */
  TOO_SLOW: 4508,
} as const;

export interface ViewerOptions {
  kind: ViewerStatus['kind'];
  /** The generation the ticket was made for; a reconnect closes the viewer. */
  generation: number;
}

/**
 * One video socket (issue 16 §3): frames of a desktop session's framebuffer to a page, an MCP Apps
 * view (JPEG of the changed region) or a terminal viewer (the whole screen as raw RGB scaled to
 * the size it asked for), plus the session's state and the agent's pointer as JSON text messages.
 *
 * Flow control: a frame is sent only after the previous one was acknowledged (`{"t":"ack","seq"}`)
 * and at most one per {@link PanelLimits.PAGE_FRAME_INTERVAL_MS} (pages, apps) or
 * {@link PanelLimits.TERMINAL_FRAME_INTERVAL_MS} (terminal). Changes that arrive meanwhile are
 * merged into one dirty rectangle, so a slow or stalled viewer costs one encoded frame at most —
 * never a queue. A socket that still holds more than {@link PanelLimits.MAX_BUFFERED_BYTES} is
 * closed.
 */
export class VideoViewer {
  private seq = 0;
  private awaitingAck = false;
  private encoding = false;
  private dirty: Rect | null = null;
  private needWhole = true;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private framesSent = 0;
  private bytesSent = 0;
  private closed = false;
  /** Terminal viewers: the picture size they asked for. */
  private scaled: Size | null = null;
  private readonly intervalMs: number;

  constructor(
    private readonly ws: WebSocket,
    readonly session: DesktopSession,
    private readonly opts: ViewerOptions,
    private readonly onEnd: (v: VideoViewer) => void,
  ) {
    this.intervalMs = opts.kind === 'terminal' ? PanelLimits.TERMINAL_FRAME_INTERVAL_MS : PanelLimits.PAGE_FRAME_INTERVAL_MS;
  }

  /** Starts streaming: the hello (size and state), the pointer, then frames. */
  start(): void {
    const fb = this.session.fb;
    fb.on('frame', this.onFrame);
    fb.on('resize', this.onResize);
    this.session.events.on('state', this.onState);
    this.session.events.on('pointer', this.onPointer);
    this.ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(data.toString());
    });
    this.ws.on('close', () => this.dispose());
    this.ws.on('error', () => this.dispose());
    this.sendJson({ t: 'hello', kind: this.opts.kind, width: fb.width, height: fb.height, session: this.session.view() });
    this.sendJson({ t: 'pointer', p: this.session.lastAgentPointer });
    this.schedule();
  }

  /** Numbers for `d.status` and the bench. */
  status(): ViewerStatus {
    return {
      kind: this.opts.kind,
      desktop_session_id: this.session.id,
      frames_sent: this.framesSent,
      bytes_sent: this.bytesSent,
      awaiting_ack: this.awaitingAck,
      buffered_bytes: this.ws.bufferedAmount,
    };
  }

  /** Closes the socket (and stops streaming). */
  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, reason);
    this.dispose();
  }

  private readonly onFrame = (u: FrameUpdate): void => {
    for (const r of u.rects) if (r.width > 0 && r.height > 0) this.dirty = unionRect(this.dirty, r);
    this.schedule();
  };

  private readonly onResize = (size: Size): void => {
    this.needWhole = true;
    this.dirty = null;
    this.sendJson({ t: 'size', width: size.width, height: size.height });
  };

  private readonly onState = (): void => {
    const v = this.session.view();
    this.sendJson({ t: 'state', session: v });
    if (v.state === 'closed') this.close(ViewerClose.SESSION_CLOSED, 'the desktop session closed');
    else if (v.generation !== this.opts.generation && v.state === 'connected') this.close(ViewerClose.GENERATION_CHANGED, 'the desktop reconnected; ask for a new ticket');
  };

  private readonly onPointer = (p: { x: number; y: number } | null): void => {
    this.sendJson({ t: 'pointer', p });
  };

  private onMessage(text: string): void {
    let m: { t?: unknown; seq?: unknown; width?: unknown; height?: unknown };
    try {
      m = JSON.parse(text) as typeof m;
    } catch {
      return;
    }
    if (m.t === 'ack' && m.seq === this.seq && this.awaitingAck) {
      this.awaitingAck = false;
      this.schedule();
    } else if (m.t === 'size' && this.opts.kind === 'terminal') {
      const w = Number(m.width);
      const h = Number(m.height);
      if (Number.isInteger(w) && Number.isInteger(h) && w >= 1 && h >= 1 && w <= PanelLimits.TERMINAL_MAX_COLS && h <= PanelLimits.TERMINAL_MAX_ROWS * 2) {
        this.scaled = { width: w, height: h };
        this.needWhole = true;
        this.schedule();
      }
    }
  }

  private schedule(): void {
    if (this.closed || this.awaitingAck || this.encoding || this.timer) return;
    if (!this.needWhole && !this.dirty) return;
    if (this.opts.kind === 'terminal' && !this.scaled) return;
    const wait = Math.max(0, this.lastSentAt + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pump();
    }, wait);
  }

  private async pump(): Promise<void> {
    const fb = this.session.fb;
    if (this.closed || fb.width === 0 || fb.height === 0) return;
    if (this.ws.bufferedAmount > PanelLimits.MAX_BUFFERED_BYTES) {
      this.close(ViewerClose.TOO_SLOW, 'the viewer stopped reading');
      return;
    }
    const whole: Rect = { x: 0, y: 0, width: fb.width, height: fb.height };
    let rect = this.needWhole || !this.dirty ? whole : clip(this.dirty, whole);
    if (rect.width * rect.height > PanelLimits.FULL_FRAME_AREA_SHARE * fb.width * fb.height) rect = whole;
    this.needWhole = false;
    this.dirty = null;
    this.encoding = true;
    try {
      let msg: Buffer;
      const seq = (this.seq + 1) >>> 0;
      if (this.opts.kind === 'terminal') {
        const out = this.scaled!;
        const rgb = await scaleRgb(fb.crop(whole), whole, out);
        msg = Buffer.concat([frameHeader(FrameFormat.RGB, true, seq, { x: 0, y: 0, ...out }), rgb]);
      } else {
        const jpeg = await encodeJpeg(fb.crop(rect), rect);
        msg = Buffer.concat([frameHeader(FrameFormat.JPEG, rect === whole, seq, rect), jpeg]);
      }
      if (this.closed) return;
      this.seq = seq;
      this.awaitingAck = true;
      this.lastSentAt = Date.now();
      this.framesSent++;
      this.bytesSent += msg.length;
      this.ws.send(msg);
    } catch (err) {
      log(`panel: a video frame failed: ${(err as Error).message}`);
      this.needWhole = true;
    } finally {
      this.encoding = false;
    }
    this.schedule();
  }

  private sendJson(m: Record<string, unknown>): void {
    if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(m));
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const fb = this.session.fb;
    fb.off('frame', this.onFrame);
    fb.off('resize', this.onResize);
    this.session.events.off('state', this.onState);
    this.session.events.off('pointer', this.onPointer);
    this.onEnd(this);
  }
}

/** `r` clipped to `bounds` (a framebuffer change never lies outside, but a resize may race it). */
function clip(r: Rect, bounds: Rect): Rect {
  const x = Math.max(bounds.x, r.x);
  const y = Math.max(bounds.y, r.y);
  const right = Math.min(bounds.x + bounds.width, r.x + r.width);
  const bottom = Math.min(bounds.y + bounds.height, r.y + r.height);
  if (right <= x || bottom <= y) return { ...bounds };
  return { x, y, width: right - x, height: bottom - y };
}
