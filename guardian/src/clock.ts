import type { ActivityClock } from '@holdfast/shared/protocol';

/**
 * The authoritative activity clock of a session (DESIGN §4.3). The daemon's reaper decides on
 * these values; the guardian only records them. Times are epoch milliseconds.
 *
 * - `lastPtyActivityAt`: any PTY output (updated per chunk, cheap).
 * - `lastInstructionAt`: exec, input, spawn, stop, reset_shell.
 * - `everExecuted`: set by the first exec, spawn or input (never cleared).
 * - `busy` is computed by the caller (a foreground command or a task is running).
 */
export class Clock {
  readonly createdAt = Date.now();
  lastPtyActivityAt = this.createdAt;
  lastInstructionAt = this.createdAt;
  everExecuted = false;

  /** Records PTY output now. */
  ptyActivity(): void {
    this.lastPtyActivityAt = Date.now();
  }

  /** Records an instruction; `executes` marks the session as having executed something. */
  instruction(executes: boolean): void {
    this.lastInstructionAt = Date.now();
    if (executes) this.everExecuted = true;
  }

  /** The clock as sent in `g.status`. */
  snapshot(busy: boolean): ActivityClock {
    return {
      createdAt: this.createdAt,
      lastPtyActivityAt: this.lastPtyActivityAt,
      lastInstructionAt: this.lastInstructionAt,
      everExecuted: this.everExecuted,
      busy,
    };
  }
}
