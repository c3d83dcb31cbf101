import { EventEmitter } from 'node:events';
import { LinkTimeouts } from '../constants.js';
import { asCancelWhy, cancelReason, cancelWhy, fromWireError, HoldfastError, toWireError } from '../errors.js';
import type { Frame, WelcomeFrame, HelloFrame } from '../protocol/envelope.js';
import type { FramedSocket } from './framed-socket.js';

/** What a request handler receives besides method and params. */
export interface RequestContext {
  /** Aborted when the caller cancels, the deadline passes or the connection closes. */
  signal: AbortSignal;
  /** Absolute deadline (epoch ms) if the caller gave one. */
  deadline?: number;
  /** The peer the request came from (to emit events back, e.g. follow streams). */
  peer: RpcPeer;
}

/** Serves one request: returns the result value or throws (a HoldfastError keeps its code). */
export type RequestHandler = (method: string, params: unknown, ctx: RequestContext) => Promise<unknown> | unknown;

export interface RequestOptions {
  /** Relative deadline, ms; the request fails with `TIMEOUT` and a `cancel` is sent. */
  deadlineMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
  signal?: AbortSignal;
}

/**
 * Request/response correlation over a {@link FramedSocket} after the handshake (DESIGN §3):
 * `req{id,m,p,deadlineMs?}` → `res{id,r}` | `err{id,e}`, `evt{ev,d}` one-way, `cancel{id,why?}`
 * (the abort reason's {@link cancelWhy} travels, so a handler two hops away knows whether the MCP
 * client cancelled on purpose),
 * `ping`/`pong`. Both sides may send requests. When the socket closes every pending request
 * fails with the retryable `NOT_CONNECTED` and every running handler is aborted.
 */
export class RpcPeer extends EventEmitter<{ event: [string, unknown]; close: [Error | undefined] }> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly running = new Map<number, AbortController>();
  private handler: RequestHandler | undefined;
  /** Hello (server side) or welcome (client side) of the other end. */
  remote: HelloFrame | WelcomeFrame | undefined;

  constructor(readonly framed: FramedSocket, handler?: RequestHandler) {
    super();
    this.handler = handler;
    framed.on('frame', (f) => this.onFrame(f));
    framed.on('close', (err) => this.onClose(err));
  }

  /** True while the connection is open. */
  get isOpen(): boolean {
    return !this.framed.isClosed;
  }

  /** Number of requests awaiting an answer from the other side. */
  get pendingCount(): number {
    return this.pending.size;
  }

  setHandler(handler: RequestHandler): void {
    this.handler = handler;
  }

  /**
   * Sends a request and resolves with its result.
   * @throws HoldfastError from the remote side, `TIMEOUT`, `CANCELLED` or `NOT_CONNECTED`.
   */
  request<R = unknown>(method: string, params: unknown, opts: RequestOptions = {}): Promise<R> {
    if (this.framed.isClosed) return Promise.reject(new HoldfastError('NOT_CONNECTED', 'connection is closed'));
    const id = this.nextId++;
    const deadlineMs = opts.deadlineMs ?? LinkTimeouts.DEFAULT_REQUEST_MS;
    return new Promise<R>((resolve, reject) => {
      const p: Pending = { resolve: resolve as (v: unknown) => void, reject };
      p.timer = setTimeout(() => {
        this.settle(id, new HoldfastError('TIMEOUT', `${method} got no answer within ${deadlineMs} ms`));
        void this.framed.send({ k: 'cancel', id }).catch(() => undefined);
      }, deadlineMs);
      if (opts.signal) {
        const signal = opts.signal;
        if (signal.aborted) {
          clearTimeout(p.timer);
          reject(cancelReason(cancelWhy(signal.reason), `${method} was cancelled`));
          return;
        }
        p.signal = signal;
        p.onAbort = () => {
          // The reason travels: the other side's handler sees why (issue 9, item 4).
          const why = cancelWhy(signal.reason);
          this.settle(id, cancelReason(why, `${method} was cancelled`));
          void this.framed.send({ k: 'cancel', id, ...(why !== undefined ? { why } : {}) }).catch(() => undefined);
        };
        signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.pending.set(id, p);
      this.framed.send({ k: 'req', id, m: method, p: params, deadlineMs }).catch((err: Error) => this.settle(id, err));
    });
  }

  /** Sends a one-way event. Resolves when written (honours drain). */
  emitEvent(ev: string, d: unknown): Promise<void> {
    return this.framed.send({ k: 'evt', ev, d });
  }

  /** Closes the connection; pending requests fail with `NOT_CONNECTED`. */
  close(): void {
    this.framed.close();
  }

  private settle(id: number, err: Error | null, value?: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    if (p.signal && p.onAbort) p.signal.removeEventListener('abort', p.onAbort);
    if (err) p.reject(err);
    else p.resolve(value);
  }

  private onFrame(f: Frame): void {
    switch (f.k) {
      case 'res':
        this.settle(f.id, null, f.r);
        return;
      case 'err':
        if (f.id === null) {
          // Connection-level error: the other side is closing; fail everything with it.
          const err = fromWireError(f.e);
          for (const id of [...this.pending.keys()]) this.settle(id, err);
          return;
        }
        this.settle(f.id, fromWireError(f.e));
        return;
      case 'req':
        void this.serve(f.id, f.m, f.p, f.deadlineMs);
        return;
      case 'cancel':
        this.running.get(f.id)?.abort(cancelReason(asCancelWhy(f.why), f.why === 'client' ? 'cancelled by the client' : f.why === 'timeout' ? 'the client request timed out' : 'cancelled by the caller'));
        return;
      case 'evt':
        this.emit('event', f.ev, f.d);
        return;
      case 'ping':
        void this.framed.send({ k: 'pong', t: f.t }).catch(() => undefined);
        return;
      default:
        return;
    }
  }

  private async serve(id: number, method: string, params: unknown, deadlineMs?: number): Promise<void> {
    const ac = new AbortController();
    this.running.set(id, ac);
    let timer: NodeJS.Timeout | undefined;
    const ctx: RequestContext = { signal: ac.signal, peer: this };
    if (typeof deadlineMs === 'number' && deadlineMs > 0) {
      ctx.deadline = Date.now() + deadlineMs;
      timer = setTimeout(() => ac.abort(new HoldfastError('TIMEOUT', `${method} passed its deadline`)), deadlineMs);
    }
    try {
      if (!this.handler) throw new HoldfastError('UNKNOWN_METHOD', `this peer serves no requests (${method})`);
      const r = await this.handler(method, params, ctx);
      if (!this.framed.isClosed) await this.framed.send({ k: 'res', id, r: r === undefined ? null : r });
    } catch (err) {
      if (!this.framed.isClosed) {
        await this.framed.send({ k: 'err', id, e: toWireError(err) }).catch(() => undefined);
      }
    } finally {
      if (timer) clearTimeout(timer);
      this.running.delete(id);
    }
  }

  private onClose(err: Error | undefined): void {
    const e = new HoldfastError('NOT_CONNECTED', 'connection closed', { cause: err });
    for (const id of [...this.pending.keys()]) this.settle(id, e);
    for (const ac of this.running.values()) ac.abort(e);
    this.running.clear();
    this.emit('close', err);
  }
}
