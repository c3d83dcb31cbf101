import { HttpConstants } from './constants.js';

/**
 * Admission control of HTTP requests (DESIGN §6.2): a per-source-address rate limit (token
 * bucket: `perMinute` requests in a burst, refilled at `perMinute` per minute; over it → 429)
 * and an in-flight concurrency cap (over it → 503). Both answers carry `Retry-After: 1`.
 */

/** Token bucket per source address. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes one request from `source`'s budget; false when it is exhausted. */
  take(source: string): boolean {
    const t = this.now();
    let b = this.buckets.get(source);
    if (b === undefined) {
      if (this.buckets.size >= HttpConstants.RATE_LIMIT_MAX_SOURCES) this.forgetOldest();
      b = { tokens: this.perMinute, at: t };
    } else {
      b.tokens = Math.min(this.perMinute, b.tokens + (t - b.at) * this.refillPerMs);
      b.at = t;
      this.buckets.delete(source); // re-insert: the map stays ordered by last use
    }
    this.buckets.set(source, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private forgetOldest(): void {
    const first = this.buckets.keys().next();
    if (!first.done) this.buckets.delete(first.value);
  }
}

/** Counts requests in flight; refuses beyond `max`. */
export class ConcurrencyGate {
  private inFlight = 0;

  constructor(private readonly max: number) {}

  /** Number of admitted requests not yet released. */
  get current(): number {
    return this.inFlight;
  }

  /** Admits one request; the returned release function must be called exactly once (extra calls are ignored). Null when full. */
  tryEnter(): (() => void) | null {
    if (this.inFlight >= this.max) return null;
    this.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
    };
  }
}
