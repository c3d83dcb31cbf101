import { Worker } from 'node:worker_threads';
import { HoldfastError } from '@holdfast/shared/errors';

/** What a worker answers to one request: its result or an error message. */
export type WorkerAnswer<R> = { id: number; ok: true; result: R } | { id: number; ok: false; error: string };

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

/**
 * One long-lived `worker_threads` worker that answers requests by id (the search engine, issue 4;
 * the code map, issue 17): started on first use, never keeps the process alive, restarted on the
 * next call after it died (pending calls fail with `INTERNAL`). A request the worker rejects
 * fails with `BAD_REQUEST` and the worker's message.
 */
export class WorkerClient<Req extends object, Res> {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** @param url the compiled worker module; @param what names it in errors ("search worker"). */
  constructor(
    private readonly url: URL,
    private readonly what: string,
  ) {}

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.url);
    w.unref();
    w.on('message', (res: WorkerAnswer<Res>) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.ok) p.resolve(res.result);
      else p.reject(new HoldfastError('BAD_REQUEST', res.error));
    });
    const fail = (err: Error): void => {
      this.worker = null;
      for (const p of this.pending.values()) p.reject(new HoldfastError('INTERNAL', `${this.what} failed: ${err.message}`));
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => {
      if (this.worker === w) fail(new Error(`exited with code ${code}`));
    });
    this.worker = w;
    return w;
  }

  /** Sends `req` (with a fresh `id`) and resolves with the worker's result. */
  call<T extends Res>(req: Req): Promise<T> {
    const id = this.nextId++;
    const w = this.ensure();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as Pending['resolve'], reject });
      w.postMessage({ ...req, id });
    });
  }

  /** Stops the worker (daemon shutdown, tests). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

/**
 * The worker side: answers every `{id, …}` message with `handle`'s result (or promise) or its
 * error message. Call once at the top of a worker module.
 */
export function serveWorkerRequests<Req extends { id: number }, Res>(
  port: { on(ev: 'message', fn: (req: Req) => void): unknown; postMessage(v: unknown): void },
  handle: (req: Req) => Res | Promise<Res>,
): void {
  port.on('message', (req) => {
    const answer = (res: WorkerAnswer<Res>): void => port.postMessage(res);
    try {
      const r = handle(req);
      if (r instanceof Promise) r.then((result) => answer({ id: req.id, ok: true, result }), (err: Error) => answer({ id: req.id, ok: false, error: err.message }));
      else answer({ id: req.id, ok: true, result: r });
    } catch (err) {
      answer({ id: req.id, ok: false, error: (err as Error).message });
    }
  });
}
