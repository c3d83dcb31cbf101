import { HttpConstants, ReadDeadlines } from './constants.js';

/**
 * Admission control of HTTP requests (DESIGN §6.2): a rate limit per bucket (token bucket:
 * `perMinute` requests in a burst, refilled at `perMinute` per minute; over it → 429), an
 * in-flight concurrency cap (over it → 503) and a budget of request-body bytes held in memory at
 * once (over it → 503). Every refusal carries `Retry-After: 1`. Issue 18 adds the read deadlines
 * of headers and bodies (408) and the refusal of JSON-RPC batches (400), which would otherwise
 * carry many calls past the rate and concurrency limits in one request.
 */

/**
 * The rate-limit bucket of a request: authenticated requests count per (principal, source
 * address), failed authentications per source address in a bucket of their own — so a flood of
 * bad or missing tokens from 127.0.0.1 (where every local client comes from) never spends the
 * budget of the real client.
 */
export function rateBucket(source: string, principal: string | null): string {
  return principal === null ? `unauthenticated\0${source}` : `principal\0${principal}\0${source}`;
}

/** Token bucket per key (see {@link rateBucket}). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes one request from the budget of `source` (a bucket key); false when it is exhausted. */
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

/**
 * Bytes of request bodies held in memory at once, across all requests (DESIGN §6.2 body limit ×
 * concurrency would otherwise allow 32 × 64 MiB). A body is counted chunk by chunk as it arrives
 * (a slow or declared-but-unsent body holds only what it sent) and given back when its request
 * is answered; a request that would pass the budget gets 503 + `Retry-After: 1`.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes currently held. */
  get current(): number {
    return this.used;
  }

  /** Bytes that can still be taken. */
  get available(): number {
    return this.maxBytes - this.used;
  }

  /** Takes `n` bytes; false (nothing taken) when that would pass the budget. */
  tryTake(n: number): boolean {
    if (this.used + n > this.maxBytes) return false;
    this.used += n;
    return true;
  }

  /** Gives back `n` bytes taken with {@link tryTake}. */
  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/**
 * Is a body that has sent `receivedBytes` after `elapsedMs` behind its read deadline (issue 18)?
 * The first {@link ReadDeadlines.BODY_GRACE_MS} are free; after that the body must have arrived
 * at {@link ReadDeadlines.BODY_MIN_BYTES_PER_S} on average over the time past the grace — so a
 * 64 MiB upload at 1 MiB/s passes, while a trickle of a few bytes a second is cut after ~5 s.
 */
export function bodyBehindDeadline(receivedBytes: number, elapsedMs: number): boolean {
  const over = elapsedMs - ReadDeadlines.BODY_GRACE_MS;
  return over > 0 && receivedBytes < (over / 1000) * ReadDeadlines.BODY_MIN_BYTES_PER_S;
}

/**
 * The refusal of a JSON-RPC batch (a JSON array body), or null for anything else (issue 18).
 * MCP dropped batching in 2025-06-18 and neither protocol revision holdfast serves uses it; a
 * batch would carry many tool calls past the per-request rate and concurrency limits.
 */
export function batchRefusal(parsedBody: unknown): string | null {
  if (!Array.isArray(parsedBody)) return null;
  return `Invalid Request: JSON-RPC batches (${parsedBody.length} messages in one body) are not accepted; send one JSON-RPC message per HTTP request`;
}
