import { WorkerClient } from '../worker-client.js';
import type { CodeMapAnswer, CodeMapRequest } from './tags-worker.js';
import type { MapResult, OutlineResult, ReferencesResult, WalkScope } from './types.js';

type Body = CodeMapRequest extends infer R ? (R extends CodeMapRequest ? Omit<R, 'id'> : never) : never;

/**
 * The code map (issue 17, docs/code-map.md): tree-sitter parsing, tags queries, the ranked map and
 * name references, all in one long-lived worker thread (parsed files cached there by path, size
 * and mtime) so the daemon's event loop never parses.
 */
export class CodeMapService {
  private readonly worker = new WorkerClient<Body, CodeMapAnswer>(new URL('./tags-worker.js', import.meta.url), 'code map worker');

  /** Definitions of one workspace file (`path` relative, already checked by policy). */
  outline(root: string, path: string): Promise<OutlineResult> {
    return this.worker.call<OutlineResult>({ kind: 'outline', root, path });
  }

  /** Every source file under the scope, ranked, with the symbols each shows. */
  map(walk: WalkScope): Promise<MapResult> {
    return this.worker.call<MapResult>({ kind: 'map', walk });
  }

  /** Definitions and uses of `name` under the scope. @throws HoldfastError BAD_REQUEST for a name that is not one identifier. */
  references(walk: WalkScope, name: string): Promise<ReferencesResult> {
    return this.worker.call<ReferencesResult>({ kind: 'references', walk, name });
  }

  /** Stops the worker. */
  close(): Promise<void> {
    return this.worker.close();
  }
}
