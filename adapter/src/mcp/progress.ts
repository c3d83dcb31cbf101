import { randomUUID } from 'node:crypto';
import { ControlEvents, type ToolProgressEvent } from '@holdfast/shared/control';
import type { ProgressSink } from './tool-call.js';

/**
 * Routes the daemon's `tool.progress` events (issue 13) to the tool call they belong to: a call
 * that wants progress opens a route (a fresh `progress_id` for its `CallContext`) and closes it
 * when it ends; events for closed or unknown ids are dropped. One per adapter process.
 */
export class ProgressRoutes {
  private readonly sinks = new Map<string, ProgressSink>();

  /** A new progress id whose events go to `sink`. */
  open(sink: ProgressSink): string {
    const id = randomUUID();
    this.sinks.set(id, sink);
    return id;
  }

  close(id: string): void {
    this.sinks.delete(id);
  }

  /** Feeds one event of the daemon connection (others are ignored). */
  deliver(ev: string, data: unknown): void {
    if (ev !== ControlEvents.toolProgress || !data || typeof data !== 'object') return;
    const { progress_id, ...p } = data as ToolProgressEvent;
    if (typeof progress_id !== 'string' || typeof p.progress !== 'number') return;
    this.sinks.get(progress_id)?.(p);
  }
}
