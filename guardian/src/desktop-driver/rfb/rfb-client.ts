import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import { constants as zc, createInflate, type Inflate } from 'node:zlib';
import { HoldfastError, type DisplayView, type Rect } from '@holdfast/shared/protocol';
import type { Framebuffer } from '../framebuffer.js';
import { ByteReader } from './byte-reader.js';
import { vncAuthResponse } from './des.js';
import { Encodings, keyEvent, pointerEvent, setEncodings, setPixelFormat, updateRequest } from './messages.js';
import { decodeZrle } from './zrle.js';

/** Where an RFB server listens: a Unix socket (a private display) or TCP. */
export type RfbEndpoint = { path: string } | { host: string; port: number };

export interface RfbConnectOptions {
  endpoint: RfbEndpoint;
  /** VNC password (RFC 6143 §7.2.2), if the server asks for one. */
  password?: string | undefined;
  /** Encodings to offer, in order of preference (messages.ts). */
  encodings: readonly number[];
  /** Decoded pixels go here. */
  framebuffer: Framebuffer;
  /** Deadline of connect + handshake + first full frame, ms. */
  timeoutMs: number;
  /** Least time between two incremental update requests, ms. */
  minUpdateIntervalMs: number;
}

/** The connection dropped (or was closed) while something was being sent or awaited. */
export class RfbConnectionLost extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RfbConnectionLost';
  }
}

const SEC_NONE = 1;
const SEC_VNC_AUTH = 2;
const SEC_NAMES: Readonly<Record<number, string>> = { 1: 'None', 2: 'VncAuth', 5: 'RA2', 16: 'Tight', 18: 'TLS', 19: 'VeNCrypt', 30: 'Apple ARD' };
const RAW_CHUNK_BYTES = 256 * 1024;

/**
 * An RFB 3.3/3.7/3.8 client (RFC 6143) — no maintained npm client decodes a compressed encoding
 * on Node 20 (`rfb2`: raw and CopyRect only; `vnc-rfb-client`: DES fails under OpenSSL 3), so
 * holdfast has its own:
 *
 * - handshake: versions 3.3, 3.7 and 3.8; security None or VNC authentication (DES, des.ts);
 *   ClientInit shared (the person's own viewer stays connected);
 * - pixels: SetPixelFormat 32 bpp RGBX, encodings Raw, CopyRect and ZRLE (one zlib stream per
 *   connection), pseudo-encodings DesktopSize, ExtendedDesktopSize (the screen layout) and
 *   LastRect; decoded into a {@link Framebuffer};
 * - updates: after the first full frame the client keeps one incremental request outstanding
 *   (at most one per `minUpdateIntervalMs`), so the framebuffer follows the screen; `refresh()`
 *   asks for the whole screen again;
 * - input: KeyEvent and PointerEvent, each resolved once written to the socket (RFB has no
 *   acknowledgement). A write on a closed connection rejects with {@link RfbConnectionLost}.
 *
 * Events: `screens` (the server's screen layout changed), `close` (once; with the error that
 * ended the connection, if any).
 */
export class RfbClient extends EventEmitter<{ screens: [DisplayView[]]; close: [Error | undefined] }> {
  /** Protocol version agreed (`3.3`, `3.7`, `3.8`). */
  readonly version: string;
  /** The desktop name from ServerInit. */
  readonly serverName: string;
  private screensList: DisplayView[] = [];
  private closed = false;
  private closeError: Error | undefined;
  private requestOutstanding = false;
  private lastRequestAt = 0;
  private nextRequestTimer: NodeJS.Timeout | null = null;
  private fullAfterThis = false;
  private zlib: Inflate | null = null;
  private readonly frameWaiters = new Set<() => void>();

  private constructor(
    private readonly socket: Socket,
    private readonly reader: ByteReader,
    private readonly fb: Framebuffer,
    private readonly opts: RfbConnectOptions,
    init: { version: string; name: string },
  ) {
    super();
    this.version = init.version;
    this.serverName = init.name;
  }

  /**
   * Connects, authenticates, sets the pixel format and encodings, and resolves once the first
   * full frame is in the framebuffer.
   * @throws HoldfastError `DESKTOP_UNAVAILABLE` (nothing listens, handshake failed, timeout, no
   *   supported security type), `DESKTOP_AUTH_FAILED` (password missing or refused).
   */
  static async connect(opts: RfbConnectOptions): Promise<RfbClient> {
    const where = 'path' in opts.endpoint ? opts.endpoint.path : `${opts.endpoint.host}:${opts.endpoint.port}`;
    const socket = 'path' in opts.endpoint ? connect({ path: opts.endpoint.path }) : connect({ host: opts.endpoint.host, port: opts.endpoint.port });
    const reader = new ByteReader();
    const state: { error: Error | null } = { error: null };
    socket.on('data', (c: Buffer) => reader.push(c));
    socket.on('error', (err) => {
      state.error ??= err;
    });
    socket.on('close', () => reader.end(new RfbConnectionLost(`the VNC connection to ${where} closed${state.error ? `: ${state.error.message}` : ''}`)));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HoldfastError('DESKTOP_UNAVAILABLE', `no VNC answer from ${where} within ${opts.timeoutMs} ms`, { retryable: true })), opts.timeoutMs);
    });
    timeout.catch(() => undefined);
    try {
      const hs = handshake(socket, reader, opts.password, where);
      hs.catch(() => undefined);
      const init = await Promise.race([hs, timeout]);
      if ('host' in opts.endpoint) socket.setNoDelay(true);
      const client = new RfbClient(socket, reader, opts.framebuffer, opts, init);
      opts.framebuffer.resize(init.width, init.height);
      const first = client.nextFrame(opts.framebuffer.frameId);
      first.catch(() => undefined);
      client.start();
      await Promise.race([first, timeout]);
      return client;
    } catch (err) {
      socket.destroy();
      if (err instanceof HoldfastError) throw err;
      throw new HoldfastError('DESKTOP_UNAVAILABLE', `cannot connect to the VNC server at ${where}: ${state.error?.message ?? (err as Error).message}`, { retryable: true, cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /** True while the connection is open. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /** The server's screen layout (ExtendedDesktopSize), or one screen covering the framebuffer. */
  get screens(): DisplayView[] {
    if (this.screensList.length > 0) return this.screensList;
    return [{ index: 0, x: 0, y: 0, width: this.fb.width, height: this.fb.height }];
  }

  /**
   * Asks for the whole screen (non-incremental) and resolves once updates covering it arrived.
   * @throws RfbConnectionLost when the connection drops first; HoldfastError `TIMEOUT`.
   */
  async refresh(timeoutMs: number): Promise<void> {
    const covered = new Promise<void>((resolve, reject) => {
      let area = 0;
      const full = this.fb.width * this.fb.height;
      const onFrame = (u: { rects: Rect[] }): void => {
        for (const r of u.rects) area += r.width * r.height;
        if (area >= full) finish();
      };
      const onClose = (): void => {
        cleanup();
        reject(new RfbConnectionLost('the VNC connection closed during a refresh', { cause: this.closeError }));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new HoldfastError('TIMEOUT', `the VNC server sent no full frame within ${timeoutMs} ms`, { retryable: true }));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.fb.off('frame', onFrame);
        this.off('close', onClose);
      };
      const finish = (): void => {
        cleanup();
        resolve();
      };
      this.fb.on('frame', onFrame);
      this.once('close', onClose);
    });
    await this.write(updateRequest(false, 0, 0, this.fb.width, this.fb.height));
    this.requestOutstanding = true;
    this.lastRequestAt = Date.now();
    await covered;
  }

  /** Resolves after the first completed update whose frame id is above `afterFrameId` (or at `timeoutMs`). */
  async waitFrame(afterFrameId: number, timeoutMs: number): Promise<boolean> {
    if (this.fb.frameId > afterFrameId) return true;
    let timer: NodeJS.Timeout | undefined;
    const got = await Promise.race([this.nextFrame(afterFrameId).then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)))]).catch(() => false);
    clearTimeout(timer);
    return got;
  }

  /** Sends a KeyEvent. @throws RfbConnectionLost */
  key(keysym: number, down: boolean): Promise<void> {
    return this.write(keyEvent(keysym, down));
  }

  /** Sends a PointerEvent (framebuffer coordinates, button mask). @throws RfbConnectionLost */
  pointer(x: number, y: number, mask: number): Promise<void> {
    return this.write(pointerEvent(x, y, mask));
  }

  /** Closes the connection (idempotent). */
  close(): void {
    this.finish(undefined);
  }

  // ---- internals -----------------------------------------------------------------------------

  private start(): void {
    this.socket.on('close', () => this.finish(new RfbConnectionLost('the VNC server closed the connection')));
    void this.writeRaw(Buffer.concat([setPixelFormat(), setEncodings(this.opts.encodings), updateRequest(false, 0, 0, this.fb.width, this.fb.height)]));
    this.requestOutstanding = true;
    this.lastRequestAt = Date.now();
    void this.readLoop();
  }

  private nextFrame(afterFrameId: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (this.fb.frameId > afterFrameId) {
          this.frameWaiters.delete(check);
          this.off('close', onClose);
          resolve();
        }
      };
      const onClose = (): void => {
        this.frameWaiters.delete(check);
        reject(new RfbConnectionLost('the VNC connection closed', { cause: this.closeError }));
      };
      this.frameWaiters.add(check);
      this.once('close', onClose);
    });
  }

  private write(buf: Buffer): Promise<void> {
    if (this.closed || this.socket.destroyed) return Promise.reject(new RfbConnectionLost('the VNC connection is closed', { cause: this.closeError }));
    return this.writeRaw(buf);
  }

  private writeRaw(buf: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.socket.write(buf, (err) => (err ? reject(new RfbConnectionLost(`writing to the VNC server failed: ${err.message}`, { cause: err })) : resolve()));
    });
  }

  private finish(err: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.closeError = err;
    if (this.nextRequestTimer) clearTimeout(this.nextRequestTimer);
    this.reader.end(err ?? new RfbConnectionLost('the VNC connection was closed'));
    this.socket.destroy();
    this.zlib?.close();
    this.emit('close', err);
  }

  private async readLoop(): Promise<void> {
    const r = this.reader;
    try {
      for (;;) {
        const type = await r.u8();
        switch (type) {
          case 0:
            await this.readUpdate();
            break;
          case 1: {
            // SetColourMapEntries (RFC 6143 §7.6.2): we ask for true colour, so the map is read past
            // (padding, first colour, then n × 6 bytes of RGB).
            await r.skip(3);
            const n = await r.u16();
            await r.skip(n * 6);
            break;
          }
          case 2:
            break; // Bell
          case 3: {
            // ServerCutText (§7.6.4): the remote clipboard is not used; 3 bytes of padding, then
            // the text's length and the text are read past.
            await r.skip(3);
            await r.skip(await r.u32());
            break;
          }
          default:
            throw new Error(`unknown RFB server message type ${type}`);
        }
      }
    } catch (err) {
      this.finish(err instanceof RfbConnectionLost ? err : new RfbConnectionLost(`RFB protocol error: ${(err as Error).message}`, { cause: err }));
    }
  }

  private async readUpdate(): Promise<void> {
    const r = this.reader;
    await r.skip(1); // FramebufferUpdate padding (§7.6.1)
    const count = await r.u16();
    const rects: Rect[] = [];
    for (let i = 0; i < count; i++) {
      const hdr = await r.read(12);
      const x = hdr.readUInt16BE(0);
      const y = hdr.readUInt16BE(2);
      const w = hdr.readUInt16BE(4);
      const h = hdr.readUInt16BE(6);
      const enc = hdr.readInt32BE(8);
      if (enc === Encodings.LAST_RECT) break;
      switch (enc) {
        case Encodings.RAW: {
          const rowsPerChunk = Math.max(1, Math.floor(RAW_CHUNK_BYTES / Math.max(1, w * 4)));
          for (let row = 0; row < h; row += rowsPerChunk) {
            const rows = Math.min(rowsPerChunk, h - row);
            this.fb.putRows(x, y + row, w, rows, await r.read(rows * w * 4));
          }
          rects.push({ x, y, width: w, height: h });
          break;
        }
        case Encodings.COPY_RECT: {
          const src = await r.read(4);
          this.fb.copyRect(src.readUInt16BE(0), src.readUInt16BE(2), x, y, w, h);
          rects.push({ x, y, width: w, height: h });
          break;
        }
        case Encodings.ZRLE: {
          const len = await r.u32();
          const data = await this.inflate(await r.read(len));
          decodeZrle(data, x, y, w, h, this.fb);
          rects.push({ x, y, width: w, height: h });
          break;
        }
        case Encodings.DESKTOP_SIZE:
          this.resize(w, h, null);
          break;
        case Encodings.EXTENDED_DESKTOP_SIZE: {
          const n = await r.u8();
          await r.skip(3); // padding before the screens (ExtendedDesktopSize pseudo-encoding)
          const raw = await r.read(16 * n);
          // x = reason (1: our own request), y = status (non-zero: a refused request; size unchanged).
          if (!(x === 1 && y !== 0)) {
            const screens: DisplayView[] = [];
            for (let s = 0; s < n; s++) {
              const o = s * 16;
              screens.push({ index: s, x: raw.readUInt16BE(o + 4), y: raw.readUInt16BE(o + 6), width: raw.readUInt16BE(o + 8), height: raw.readUInt16BE(o + 10) });
            }
            this.resize(w, h, screens);
          }
          break;
        }
        default:
          throw new Error(`the server sent encoding ${enc}, which was not offered`);
      }
    }
    this.fb.commit(rects);
    for (const check of [...this.frameWaiters]) check();
    this.requestOutstanding = false;
    this.scheduleRequest();
  }

  private resize(w: number, h: number, screens: DisplayView[] | null): void {
    const sizeChanged = w !== this.fb.width || h !== this.fb.height;
    const next = screens && screens.length > 0 ? screens : [];
    const layoutChanged = JSON.stringify(next) !== JSON.stringify(this.screensList);
    this.screensList = next;
    if (sizeChanged) {
      this.fb.resize(w, h);
      this.fullAfterThis = true;
    }
    if (sizeChanged || layoutChanged) this.emit('screens', this.screens);
  }

  private scheduleRequest(): void {
    if (this.closed || this.requestOutstanding || this.nextRequestTimer) return;
    const wait = Math.max(0, this.lastRequestAt + this.opts.minUpdateIntervalMs - Date.now());
    this.nextRequestTimer = setTimeout(() => {
      this.nextRequestTimer = null;
      if (this.closed || this.requestOutstanding) return;
      const incremental = !this.fullAfterThis;
      this.fullAfterThis = false;
      this.requestOutstanding = true;
      this.lastRequestAt = Date.now();
      this.write(updateRequest(incremental, 0, 0, this.fb.width, this.fb.height)).catch(() => undefined);
    }, wait);
  }

  private inflate(data: Buffer): Promise<Buffer> {
    if (!this.zlib) {
      this.zlib = createInflate();
      this.zlib.on('error', () => undefined);
    }
    const z = this.zlib;
    return new Promise<Buffer>((resolve, reject) => {
      const out: Buffer[] = [];
      const onData = (d: Buffer): void => void out.push(d);
      const onError = (err: Error): void => {
        z.off('data', onData);
        reject(err);
      };
      z.on('data', onData);
      z.once('error', onError);
      z.write(data);
      z.flush(zc.Z_SYNC_FLUSH, () => {
        z.off('data', onData);
        z.off('error', onError);
        resolve(out.length === 1 ? out[0]! : Buffer.concat(out));
      });
    });
  }
}

interface ServerInit {
  version: string;
  width: number;
  height: number;
  name: string;
}

/** RFC 6143 §7.1–§7.3: version, security, ClientInit (shared) and ServerInit. */
async function handshake(socket: Socket, r: ByteReader, password: string | undefined, where: string): Promise<ServerInit> {
  const send = (b: Buffer): void => void socket.write(b);
  const banner = (await r.read(12)).toString('latin1');
  const m = /^RFB (\d{3})\.(\d{3})\n$/.exec(banner);
  if (!m) throw new HoldfastError('DESKTOP_UNAVAILABLE', `${where} is not a VNC server (it said ${JSON.stringify(banner)})`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const version = major > 3 || minor >= 8 ? '3.8' : minor === 7 ? '3.7' : '3.3';
  send(Buffer.from(`RFB 003.00${version.slice(2)}\n`, 'latin1'));

  let type: number;
  if (version === '3.3') {
    type = await r.u32();
    if (type === 0) throw new HoldfastError('DESKTOP_UNAVAILABLE', `${where} refused the connection: ${await reason(r)}`);
  } else {
    const n = await r.u8();
    if (n === 0) throw new HoldfastError('DESKTOP_UNAVAILABLE', `${where} refused the connection: ${await reason(r)}`);
    const offered = [...(await r.read(n))];
    if (offered.includes(SEC_VNC_AUTH) && (password !== undefined || !offered.includes(SEC_NONE))) type = SEC_VNC_AUTH;
    else if (offered.includes(SEC_NONE)) type = SEC_NONE;
    else {
      const names = offered.map((t) => SEC_NAMES[t] ?? String(t)).join(', ');
      throw new HoldfastError('DESKTOP_UNAVAILABLE', `${where} offers only security types ${names}; holdfast speaks None and VncAuth (enable VncAuth on the server)`, { retryable: false });
    }
    send(Buffer.from([type]));
  }
  if (type === SEC_VNC_AUTH) {
    const challenge = await r.read(16);
    if (password === undefined) {
      socket.destroy();
      throw new HoldfastError('DESKTOP_AUTH_FAILED', `${where} asks for a VNC password and none is stored for this device`, { retryable: false });
    }
    send(vncAuthResponse(challenge, password));
  } else if (type !== SEC_NONE) {
    throw new HoldfastError('DESKTOP_UNAVAILABLE', `${where} chose security type ${SEC_NAMES[type] ?? type}, which holdfast does not speak`, { retryable: false });
  }
  if (type === SEC_VNC_AUTH || version === '3.8') {
    const result = await r.u32();
    if (result !== 0) {
      const why = version === '3.8' ? await reason(r).catch(() => 'authentication failed') : 'authentication failed';
      throw new HoldfastError('DESKTOP_AUTH_FAILED', `${where} refused the VNC password (${why})`, { retryable: false });
    }
  }
  send(Buffer.from([1])); // ClientInit: shared
  const init = await r.read(24);
  const name = (await r.read(init.readUInt32BE(20))).toString('utf8');
  return { version, width: init.readUInt16BE(0), height: init.readUInt16BE(2), name };
}

async function reason(r: ByteReader): Promise<string> {
  const len = await r.u32();
  return (await r.read(Math.min(len, 4096))).toString('utf8');
}
