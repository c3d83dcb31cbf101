import { Worker } from 'node:worker_threads';
import { HoldfastError } from '@holdfast/shared/errors';
import type { WorkerRequest, WorkerResponse } from './builtin-worker.js';
import type { FilesOutcome, FilesSpec, SearchOutcome, SearchSpec } from './types.js';

type Pending = { resolve: (v: SearchOutcome | FilesOutcome) => void; reject: (e: Error) => void };

// Distributive Omit over the request union (a plain Omit would collapse it).
type RequestBody = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

/**
 * The built-in search engine (issue 4): the same walk and line matching as ripgrep's settings,
 * run in one long-lived `worker_threads` worker so a search never blocks the daemon's event loop.
 * The worker is started on first use and does not keep the process alive.
 */
export class BuiltinEngine {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./builtin-worker.js', import.meta.url));
    w.unref();
    w.on('message', (res: WorkerResponse) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.ok) p.resolve(res.result);
      else p.reject(new HoldfastError('BAD_REQUEST', res.error));
    });
    const fail = (err: Error): void => {
      this.worker = null;
      for (const p of this.pending.values()) p.reject(new HoldfastError('INTERNAL', `search worker failed: ${err.message}`));
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => {
      if (this.worker === w) fail(new Error(`exited with code ${code}`));
    });
    this.worker = w;
    return w;
  }

  private call<T extends SearchOutcome | FilesOutcome>(req: RequestBody): Promise<T> {
    const id = this.nextId++;
    const w = this.ensure();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as Pending['resolve'], reject });
      w.postMessage({ ...req, id });
    });
  }

  /** Searches in path order; collects up to `collectMax` matches, else stops at `spec.want`. */
  search(spec: SearchSpec, maxFileBytes: number, collectMax: number): Promise<SearchOutcome> {
    return this.call<SearchOutcome>({ kind: 'search', spec, maxFileBytes, collectMax });
  }

  /** Lists files in path order, up to `collectMax`. */
  files(spec: FilesSpec, collectMax: number): Promise<FilesOutcome> {
    return this.call<FilesOutcome>({ kind: 'files', spec, collectMax });
  }

  /** Stops the worker (daemon shutdown, tests). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
