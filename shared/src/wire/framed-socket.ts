import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { WireLimits } from '../constants.js';
import { HoldfastError, toWireError } from '../errors.js';
import { isFrame, type Frame } from '../protocol/envelope.js';
import { encodeFrame, FrameDecoder } from './frame-codec.js';

/**
 * A stream socket carrying frames (DESIGN §3). Emits `frame` for every decoded envelope and
 * `close` once. An oversize or undecodable frame gets one `err` frame (id null) and the socket is
 * closed; other connections are unaffected. Writes honour `drain`: `send` resolves once the
 * kernel has taken the bytes or the socket buffer is below its high-water mark.
 */
export class FramedSocket extends EventEmitter<{ frame: [Frame]; close: [Error | undefined] }> {
  private readonly decoder: FrameDecoder;
  private closed = false;
  private closeError: Error | undefined;

  constructor(
    readonly socket: Socket,
    private readonly maxFrameBytes: number = WireLimits.MAX_FRAME_BYTES,
  ) {
    super();
    this.decoder = new FrameDecoder(maxFrameBytes);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => {
      this.closeError ??= err;
    });
    socket.on('close', () => this.finish());
  }

  /** True once the socket closed (either side). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends one frame; resolves when the write buffer has room again. Rejects when closed. */
  send(frame: Frame): Promise<void> {
    if (this.closed || this.socket.destroyed) {
      return Promise.reject(new HoldfastError('NOT_CONNECTED', 'connection is closed'));
    }
    let bytes: Buffer;
    try {
      bytes = encodeFrame(frame, this.maxFrameBytes);
    } catch (err) {
      return Promise.reject(err);
    }
    const ok = this.socket.write(bytes);
    if (ok) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        this.socket.off('close', onClose);
        resolve();
      };
      const onClose = (): void => {
        this.socket.off('drain', onDrain);
        reject(new HoldfastError('NOT_CONNECTED', 'connection closed while writing'));
      };
      this.socket.once('drain', onDrain);
      this.socket.once('close', onClose);
    });
  }

  /** Sends a connection-level error frame (best effort) and closes the socket. */
  failAndClose(err: unknown): void {
    if (this.closed) return;
    const e = toWireError(err);
    try {
      this.socket.end(encodeFrame({ k: 'err', id: null, e }));
    } catch {
      this.socket.destroy();
    }
    // A peer that never reads must not keep the socket alive.
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  /** Closes the socket after flushing what was written. */
  close(): void {
    if (!this.socket.destroyed) this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  /** Destroys the socket at once. */
  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    let values: unknown[];
    try {
      values = this.decoder.push(chunk);
    } catch (err) {
      this.closeError = err as Error;
      this.failAndClose(err);
      this.socket.pause();
      return;
    }
    for (const v of values) {
      if (!isFrame(v)) {
        const err = new HoldfastError('BAD_FRAME', 'frame is not a holdfast envelope');
        this.closeError = err;
        this.failAndClose(err);
        this.socket.pause();
        return;
      }
      this.emit('frame', v);
      if (this.closed) return;
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close', this.closeError);
  }
}
