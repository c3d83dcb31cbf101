import type { ControlResult } from '@holdfast/shared/control';
import { PanelLimits } from '@holdfast/shared/constants';
import { WebSocket } from 'ws';
import type { DaemonClient } from '../../daemon-client.js';
import { depthFromBits, fitGrid, renderHalfBlocks, type CellGrid, type ColourDepth } from './half-blocks.js';

/** Bytes of the video frame header (guardian/src/desktop-driver/panel/frame-encoder.ts). */
const FRAME_HEADER_BYTES = 16;
const RGB = 2;

interface SessionState {
  desktop_session_id: string;
  device: string;
  state: string;
  paused: boolean;
  authorization: 'view' | 'control';
  control_enabled: boolean;
  closed_reason: string | null;
}

export interface ViewerOptions {
  /** Cell width / height (0.2–2). */
  cellAspect: number;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

/**
 * `holdfast desktop view` (issue 16 §5): the desktop of a view in the person's own terminal. Frames
 * come over the panel's video socket straight from the session's desktop driver (raw RGB already
 * scaled to the cell grid), at most 8 per second, and are drawn as ANSI half blocks in the
 * terminal's colour depth; the bottom line shows the state and the keys: `p` pause, `r` resume
 * (only on a device that grants control), `d` disconnect, `q`/Ctrl-C leave (the desktop session
 * stays). Pause, resume and disconnect are the person's commands (`desktop.pause`, …), the same
 * lock as `holdfast desktop pause`.
 */
export class TerminalViewer {
  private ws: WebSocket | null = null;
  private grid: CellGrid = { cols: 1, rows: 1 };
  private source = { width: 0, height: 0 };
  private session: SessionState | null = null;
  private note = '';
  private readonly depth: ColourDepth;
  private done!: (code: number) => void;
  private ended = false;

  constructor(
    private readonly client: DaemonClient,
    private readonly ticket: ControlResult<'desktop.view_ticket'>,
    private readonly o: ViewerOptions,
  ) {
    this.depth = depthFromBits(o.output.getColorDepth());
  }

  /** Runs until the person leaves or the desktop session closes; resolves the exit code. */
  run(): Promise<number> {
    const out = this.o.output;
    const exited = new Promise<number>((r) => (this.done = r));
    out.write('\x1b[?1049h\x1b[?25l\x1b[2J');
    this.o.input.setRawMode(true);
    this.o.input.resume();
    this.o.input.on('data', this.onKey);
    out.on('resize', this.onResize);
    const ws = new WebSocket(this.ticket.ws_url, { perMessageDeflate: false });
    this.ws = ws;
    ws.on('open', () => ws.send(JSON.stringify({ ticket: this.ticket.ticket })));
    ws.on('message', (data, isBinary) => {
      if (isBinary) this.onFrame(data as Buffer);
      else this.onText(data.toString());
    });
    ws.on('close', (code, reason) => {
      if (code === 4000) this.finish(0, `the desktop session closed (${this.session?.closed_reason ?? 'closed'})`);
      else if (!this.ended) this.finish(code === 1000 ? 0 : 1, `the video socket closed (${code}${reason.length ? `: ${reason.toString()}` : ''})`);
    });
    ws.on('error', (err) => this.finish(1, `cannot reach the desktop driver: ${err.message}`));
    return exited;
  }

  private onText(text: string): void {
    const m = JSON.parse(text) as { t: string; width?: number; height?: number; session?: SessionState };
    if (m.session) this.session = m.session;
    if ((m.t === 'hello' || m.t === 'size') && m.width && m.height) {
      this.source = { width: m.width, height: m.height };
      this.resize();
    }
    this.status();
  }

  private onFrame(buf: Buffer): void {
    if (buf.length < FRAME_HEADER_BYTES || buf.readUInt8(0) !== RGB) return;
    const seq = buf.readUInt32BE(4);
    const w = buf.readUInt16BE(12);
    const h = buf.readUInt16BE(14);
    // A frame made for the previous size is skipped: the next one has the new grid.
    if (w === this.grid.cols && h === this.grid.rows * 2) {
      const lines = renderHalfBlocks(buf.subarray(FRAME_HEADER_BYTES), this.grid, this.depth);
      this.o.output.write(`\x1b[H${lines.join('\r\n')}`);
    }
    this.ws?.send(JSON.stringify({ t: 'ack', seq }));
  }

  private readonly onResize = (): void => {
    this.o.output.write('\x1b[2J');
    this.resize();
    this.status();
  };

  private resize(): void {
    const out = this.o.output;
    this.grid = fitGrid(this.source.width, this.source.height, out.columns || 80, (out.rows || 24) - 1, this.o.cellAspect);
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ t: 'size', width: this.grid.cols, height: this.grid.rows * 2 }));
  }

  private status(): void {
    const s = this.session;
    const state = !s ? 'connecting' : s.state !== 'connected' ? s.state : s.paused ? 'PAUSED' : s.authorization === 'view' ? 'view only' : s.control_enabled ? 'agent control on' : 'agent control off';
    const keys = `p pause${s?.authorization === 'control' ? '  r resume' : ''}  d disconnect  q leave`;
    const line = ` ${s?.device ?? ''} ${state}${this.note ? ` — ${this.note}` : ''} | ${keys}`;
    const rows = this.o.output.rows || 24;
    this.o.output.write(`\x1b[${rows};1H\x1b[2K\x1b[7m${line.slice(0, (this.o.output.columns || 80) - 1)}\x1b[0m`);
  }

  private readonly onKey = (d: Buffer): void => {
    const k = d.toString();
    if (k === 'q' || k === '\x03') return this.finish(0, 'left the view; the desktop session is still connected');
    const id = this.ticket.desktop_session_id;
    if (k === 'p') void this.command('desktop.pause', id, 'paused');
    else if (k === 'r') {
      if (this.ticket.authorization !== 'control') this.say('view-only device: the agent has no control to resume');
      else void this.command('desktop.resume', id, 'resumed');
    } else if (k === 'd') void this.command('desktop.disconnect', id, 'disconnected');
  };

  private async command(method: 'desktop.pause' | 'desktop.resume' | 'desktop.disconnect', id: string, what: string): Promise<void> {
    try {
      await this.client.call(method, { id }, { retry: 'never', deadlineMs: 15_000 });
      this.say(what);
    } catch (err) {
      this.say(`${method.slice('desktop.'.length)} failed: ${(err as Error).message}`);
    }
  }

  private say(note: string): void {
    this.note = note;
    this.status();
  }

  private finish(code: number, message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.o.input.off('data', this.onKey);
    this.o.output.off('resize', this.onResize);
    this.o.input.setRawMode(false);
    this.o.input.pause();
    this.ws?.close(1000, 'the viewer left');
    this.o.output.write('\x1b[0m\x1b[?25h\x1b[?1049l');
    process.stderr.write(`holdfast: ${message}\n`);
    this.done(code);
  }
}

/** Parses `--cell-aspect` (0.2–2). */
export function parseCellAspect(v: string | undefined): number | null {
  if (v === undefined) return PanelLimits.CELL_ASPECT_DEFAULT;
  const n = Number(v);
  return Number.isFinite(n) && n >= PanelLimits.CELL_ASPECT_MIN && n <= PanelLimits.CELL_ASPECT_MAX ? n : null;
}
