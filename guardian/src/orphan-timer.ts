/**
 * The orphan timer (DESIGN §4.4): a guardian that has had no daemon connection for
 * `orphanTimeoutS` ends itself, so a daemon that never comes back cannot leak sessions forever.
 * It runs from start-up until the first daemon connects, and again whenever the last daemon
 * connection closes. `0` disables it.
 */
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
    this.timer = setTimeout(() => {
      this.timer = null;
      this.onOrphaned();
    }, this.timeoutS * 1000);
  }

  /** Stops the timer for good (the guardian is ending). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
