import type { WorkerRequest } from './builtin-worker.js';
import { WorkerClient } from '../worker-client.js';
import type { FilesOutcome, FilesSpec, SearchOutcome, SearchSpec } from './types.js';

// Distributive Omit over the request union (a plain Omit would collapse it).
type RequestBody = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

/**
 * The built-in search engine (issue 4): the same walk and line matching as ripgrep's settings,
 * run in one long-lived `worker_threads` worker so a search never blocks the daemon's event loop.
 * The worker is started on first use and does not keep the process alive.
 */
export class BuiltinEngine {
  private readonly worker = new WorkerClient<RequestBody, SearchOutcome | FilesOutcome>(new URL('./builtin-worker.js', import.meta.url), 'search worker');

  /** Searches in path order; collects up to `collectMax` matches, else stops at `spec.want`. */
  search(spec: SearchSpec, maxFileBytes: number, collectMax: number): Promise<SearchOutcome> {
    return this.worker.call<SearchOutcome>({ kind: 'search', spec, maxFileBytes, collectMax });
  }

  /** The matches of `paths` found again in the files read without following symlinks (see builtin-worker.ts `verify`). */
  verify(spec: SearchSpec, paths: string[]): Promise<SearchOutcome> {
    return this.worker.call<SearchOutcome>({ kind: 'verify', spec, paths });
  }

  /** Lists files in path order, up to `collectMax`. */
  files(spec: FilesSpec, collectMax: number): Promise<FilesOutcome> {
    return this.worker.call<FilesOutcome>({ kind: 'files', spec, collectMax });
  }

  /** Stops the worker (daemon shutdown, tests). */
  close(): Promise<void> {
    return this.worker.close();
  }
}
