/**
 * Schedules the checks of the guardian's own "is the foreground command waiting for input?" watch
 * (DESIGN §5 "awaiting input"; docs/execution-tasks.md "Awaiting input"). The check itself (kernel
 * evidence, then the screen) is the caller's; this module only decides when it runs:
 *
 * - nothing is armed while no foreground command runs ({@link InputWatch.start}/{@link InputWatch.stop});
 * - the first check runs once the PTY has been quiet for `firstMs` (counted from the later of the
 *   last output and the last input, `lastActivityAt`);
 * - while it stays quiet and the check says no, the next checks come after 2×, 4×… `firstMs`,
 *   at most every `maxMs`;
 * - a check that says yes parks the watch (nothing runs) until the next activity;
 * - activity ({@link InputWatch.poke}) costs a comparison while output flows: the timer is only
 *   pulled forward when it was parked or backed off beyond `firstMs` from now; a timer that fires
 *   early (output came since it was armed) re-arms for `lastActivityAt + firstMs` without checking.
 */
export interface InputWatchDeps {
  /** Epoch ms of the last PTY output or input. */
  lastActivityAt: () => number;
  /** The check: resolves true when the command waits for input (the watch then parks until {@link InputWatch.poke}). */
  check: () => Promise<boolean>;
  /** Quiet time before the first check, ms. */
  firstMs: number;
  /** Longest interval between checks, ms. */
  maxMs: number;
  /** Epoch ms now (injectable for tests). */
  now?: () => number;
  /** Timer functions (injectable for tests); handles are unref'd when they can be. */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

const defaultSet = (fn: () => void, ms: number): unknown => {
  const t = setTimeout(fn, ms);
  t.unref();
  return t;
};
const defaultClear = (h: unknown): void => clearTimeout(h as NodeJS.Timeout);

/** See the module comment. One instance per guardian; reused for every foreground command. */
export class InputWatch {
  private running = false;
  private parked = false;
  private checking = false;
  /** Interval of the next check after a negative one, ms (0: the next check is the first). */
  private backoffMs = 0;
  private timer: unknown = null;
  private dueAt = Infinity;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly d: InputWatchDeps) {
    this.now = d.now ?? Date.now;
    this.setTimer = d.setTimer ?? defaultSet;
    this.clearTimer = d.clearTimer ?? defaultClear;
  }

  /** Epoch ms of the next check, or Infinity when none is armed (for tests and logs). */
  get nextCheckAt(): number {
    return this.dueAt;
  }

  /** A foreground command started (or took the terminal): watch it from its last activity. */
  start(): void {
    this.running = true;
    this.parked = false;
    this.backoffMs = 0;
    this.arm(this.d.lastActivityAt() + this.d.firstMs);
  }

  /** No foreground command any more: nothing stays armed. */
  stop(): void {
    this.running = false;
    this.parked = false;
    this.backoffMs = 0;
    this.disarm();
  }

  /** Output or input happened: the next check is at most `firstMs` after it. */
  poke(): void {
    if (!this.running) return;
    this.parked = false;
    this.backoffMs = 0;
    const due = this.d.lastActivityAt() + this.d.firstMs;
    if (this.dueAt > due && !this.checking) this.arm(due);
  }

  private arm(at: number): void {
    this.disarm();
    this.dueAt = at;
    this.timer = this.setTimer(() => void this.fire(), Math.max(0, at - this.now()));
  }

  private disarm(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.dueAt = Infinity;
  }

  private async fire(): Promise<void> {
    this.timer = null;
    this.dueAt = Infinity;
    if (!this.running || this.parked) return;
    const quietSince = this.d.lastActivityAt();
    if (this.now() - quietSince < this.d.firstMs) {
      // Activity since this was armed: not quiet long enough yet, no check.
      this.backoffMs = 0;
      this.arm(quietSince + this.d.firstMs);
      return;
    }
    this.checking = true;
    let found = false;
    try {
      found = await this.d.check();
    } catch {
      found = false;
    } finally {
      this.checking = false;
    }
    if (!this.running) return;
    const activity = this.d.lastActivityAt() > quietSince;
    if (found && !activity) {
      this.parked = true;
      return;
    }
    if (activity) {
      this.backoffMs = 0;
      this.arm(this.d.lastActivityAt() + this.d.firstMs);
      return;
    }
    this.backoffMs = Math.min(this.d.maxMs, Math.max(this.d.firstMs, this.backoffMs) * 2);
    this.arm(this.now() + this.backoffMs);
  }
}
