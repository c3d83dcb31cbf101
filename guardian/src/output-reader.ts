import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HoldfastError, LinkTimeouts, readLogFolder, WireLimits, type LogSlice, type ReadParams, type ReadResult, type SegmentLog } from '@holdfast/shared/protocol';

/**
 * `g.read` (DESIGN §3, §5): bytes of an output source from an absolute offset, with long-poll.
 *
 * Sources: `pty` (the clean PTY stream) or `task:<id>:stdout|stderr`. A read below the retained
 * start returns from the start with `gap: true`. When nothing lies beyond `from` yet, the read
 * waits up to `waitMs` (capped at {@link LinkTimeouts.MAX_WAIT_MS} and at the caller's request
 * deadline) for new bytes or for the producer's exit. `max` is capped at
 * {@link WireLimits.MAX_READ_BYTES}. Readers never pause the producer.
 *
 * A task no longer kept in memory is still readable from its folder on disk (exited, exit code
 * unknown).
 */
export interface SourceState {
  log: SegmentLog | null;
  /** Folder to read when the writer is gone (evicted task). */
  folder: string | null;
  exited: boolean;
  exitCode: number | null;
}

export interface OutputReaderDeps {
  sessionDir: string;
  /** Current state of a source, or null when it does not exist. */
  source: (src: ReadParams['src']) => SourceState | null;
}

export class OutputReader {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly d: OutputReaderDeps) {}

  /** Wakes readers of `src` (new bytes or the producer ended). Cheap when nobody waits. */
  notify(src: string): void {
    const set = this.waiters.get(src);
    if (!set) return;
    for (const w of [...set]) w();
  }

  /** Wakes every reader (the guardian is ending). */
  notifyAll(): void {
    for (const src of [...this.waiters.keys()]) this.notify(src);
  }

  /**
   * Serves `g.read`.
   * @throws HoldfastError `TASK_NOT_FOUND` for a task source that never existed.
   */
  async read(p: ReadParams, ctx: { signal?: AbortSignal; deadline?: number } = {}): Promise<ReadResult> {
    const max = Math.min(p.max, WireLimits.MAX_READ_BYTES);
    const waitMs = Math.min(p.waitMs ?? 0, LinkTimeouts.MAX_WAIT_MS);
    const until = Math.min(Date.now() + waitMs, ctx.deadline ?? Infinity);
    for (;;) {
      const st = this.state(p.src);
      const slice: LogSlice = st.log ? st.log.read(p.from, max) : readLogFolder(st.folder!, p.from, max);
      const now = Date.now();
      if (slice.data.length > 0 || st.exited || now >= until || ctx.signal?.aborted || p.from > slice.end) {
        return { data: slice.data, offset: slice.offset, next: slice.next, gap: slice.gap, end: slice.end, exited: st.exited, exit_code: st.exitCode };
      }
      await this.waitFor(p.src, until, ctx.signal);
    }
  }

  private state(src: ReadParams['src']): SourceState {
    const st = this.d.source(src);
    if (st) return st;
    const m = /^task:([A-Za-z0-9_]+):(stdout|stderr)$/.exec(src);
    if (m) {
      const folder = join(this.d.sessionDir, 'tasks', m[1]!, m[2]!);
      if (existsSync(folder)) return { log: null, folder, exited: true, exitCode: null };
    }
    throw new HoldfastError('TASK_NOT_FOUND', `no output source ${src} in this session; list tasks with g.status`);
  }

  private waitFor(src: string, until: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.waiters.get(src);
      if (!set) {
        set = new Set();
        this.waiters.set(src, set);
      }
      const s = set;
      const done = (): void => {
        clearTimeout(timer);
        s.delete(done);
        if (s.size === 0 && this.waiters.get(src) === s) this.waiters.delete(src);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, until - Date.now()));
      s.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
