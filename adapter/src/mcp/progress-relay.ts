import { ForwardConstants } from './constants.js';
import type { ProgressSink } from './tool-call.js';

/**
 * The `notifications/progress` stream of one `tools/call` whose request carried a progress token
 * (MCP basic/utilities/progress: `progress` MUST increase with every notification).
 *
 * Two sources feed it: progress the daemon reports for the call (an upstream MCP server's, issue
 * 13), passed on as it comes, and — whenever the call has been silent for
 * {@link ForwardConstants.PROGRESS_INTERVAL_MS} — a heartbeat (issue 8), so a client that resets
 * its request timeout on progress (SDK v1 `resetTimeoutOnProgress`) keeps waiting for a long
 * `execute`. Before any real progress the heartbeat counts the seconds waited, with `total` = the
 * call's `yield_time_ms` in seconds when it names one; after real progress it nudges the last value
 * up by a thousandth (same total), never past a value the source will send. Values that would not
 * increase are raised just above the last one.
 */
export class ProgressRelay {
  private last = 0;
  private lastTotal: number | undefined;
  private lastSentAt: number;
  private real = false;
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly waitTotal: number | undefined;

  constructor(
    private readonly sink: ProgressSink,
    private readonly tool: string,
    args: Record<string, unknown>,
  ) {
    this.lastSentAt = this.started;
    this.waitTotal = typeof args.yield_time_ms === 'number' && args.yield_time_ms > 0 ? Math.ceil(args.yield_time_ms / 1000) : undefined;
    this.timer = setInterval(() => this.beat(), ForwardConstants.PROGRESS_INTERVAL_MS);
    this.timer.unref();
  }

  /** Passes on one progress event reported for the call. */
  readonly forward: ProgressSink = (p) => {
    this.real = true;
    this.lastTotal = p.total;
    this.send({ ...p, progress: p.progress > this.last ? p.progress : this.last + 0.001 });
  };

  /** Stops the heartbeat (the call answered). */
  stop(): void {
    clearInterval(this.timer);
  }

  private beat(): void {
    const now = Date.now();
    if (now - this.lastSentAt < ForwardConstants.PROGRESS_INTERVAL_MS - 50) return;
    const waited = Math.round((now - this.started) / 1000);
    if (!this.real) {
      const total = this.waitTotal;
      this.send({ progress: Math.max(this.last + 1, waited), ...(total !== undefined ? { total } : {}), message: `${this.tool} still working: ${waited} s${total !== undefined ? ` of at most ${total} s` : ''}` });
    } else {
      this.send({ progress: this.last + 0.001, ...(this.lastTotal !== undefined ? { total: this.lastTotal } : {}), message: `${this.tool} still working: ${waited} s` });
    }
  }

  private send(p: { progress: number; total?: number; message?: string }): void {
    this.last = p.progress;
    this.lastSentAt = Date.now();
    this.sink(p);
  }
}
