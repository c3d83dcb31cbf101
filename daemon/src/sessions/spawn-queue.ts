import { HoldfastError } from '@holdfast/shared/errors';

/**
 * A bounded queue of guardian starts (issue 18): at most `concurrency()` sessions start at once,
 * at most `queue()` more wait for a turn, and an open beyond that is refused at once with a
 * retryable `SPAWN_QUEUE_FULL` — instead of 200 concurrent opens starting 200 guardians that
 * starve each other past their ready deadline (`SPAWN_FAILED`) and the clients' request timeout.
 * A waiter whose caller gives up (abort signal) leaves the queue. Limits are read on every call,
 * so a config reload applies to the next open.
 */
export class SpawnQueue {
  private running = 0;
  private readonly waiting: { go: () => void }[] = [];

  constructor(
    private readonly concurrency: () => number,
    private readonly queue: () => number,
  ) {}

  /** Starts in flight now. */
  get active(): number {
    return this.running;
  }

  /** Opens waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `fn` in a turn.
   * @throws HoldfastError `SPAWN_QUEUE_FULL` (retryable) when the queue is full, `CANCELLED` when
   *   `signal` aborts while waiting.
   */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running >= this.concurrency()) {
      if (this.waiting.length >= this.queue()) {
        throw new HoldfastError('SPAWN_QUEUE_FULL', `${this.running} sessions are starting and ${this.waiting.length} more are waiting to start; retry in a moment`, {
          retryable: true,
          details: { starting: this.running, waiting: this.waiting.length },
        });
      }
      await this.turn(signal);
    } else {
      this.running++;
    }
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Waits until a running start hands its slot over (the slot is counted for us). */
  private turn(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new HoldfastError('CANCELLED', 'the caller gave up while the session was waiting to start'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next && this.running <= this.concurrency()) next.go(); // the slot passes on: running stays
    else {
      this.running--;
      if (next) this.waiting.unshift(next);
    }
  }
}
