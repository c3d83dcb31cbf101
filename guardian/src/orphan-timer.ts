/**
 * The orphan timer (DESIGN §4.4): a guardian that has had no daemon connection for
 * `orphanTimeoutS` ends itself, so a daemon that never comes back cannot leak sessions forever.
 * It runs from start-up until the first daemon connects, and again whenever the last daemon
 * connection closes. `0` disables it.
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class OrphanTimer {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly timeoutS: number,
    private readonly onOrphaned: () => void,
  ) {}

  /** Call whenever the number of daemon connections changes. */
  update(daemonConnections: number): void {
    if (daemonConnections > 0) {
      this.stop();
      return;
    }
    if (this.timer || this.timeoutS <= 0) return;
    this.arm(Date.now() + this.timeoutS * 1000);
  }

  /** setTimeout holds at most 2^31-1 ms (~24.8 days): longer timeouts re-arm. */
  private arm(deadline: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (Date.now() < deadline) this.arm(deadline);
      else this.onOrphaned();
    }, Math.min(deadline - Date.now(), MAX_TIMEOUT_MS));
  }

  /** Stops the timer for good (the guardian is ending). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
