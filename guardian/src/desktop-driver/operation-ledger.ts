import { DesktopLimits, HoldfastError } from '@holdfast/shared/protocol';

interface Entry<T> {
  digest: string;
  outcome: Promise<T>;
  at: number;
}

/**
 * `operation_id` bookkeeping of desktop actions (issue 15 §6), kept in the driver so it outlives
 * adapter and daemon restarts: the last {@link DesktopLimits.OPERATIONS_KEPT} ids are remembered
 * for at least {@link DesktopLimits.OPERATION_TTL_MS}. A repeat of an id answers the first
 * outcome (waiting for it while the first call still runs) without doing anything again — also
 * when that outcome was `outcome_unknown`: holdfast never replays input. The same id with other
 * parameters is `IDEMPOTENCY_CONFLICT`. A first attempt that was refused before anything was sent
 * (it threw) is forgotten, so the id may be used again once the refusal is resolved.
 */
export class OperationLedger<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly keep: number = DesktopLimits.OPERATIONS_KEPT,
    private readonly ttlMs: number = DesktopLimits.OPERATION_TTL_MS,
  ) {}

  /**
   * Runs `fn` once per `id`; a repeat with the same `digest` gets the first outcome.
   * @throws HoldfastError `IDEMPOTENCY_CONFLICT` for the same id with another digest; whatever
   *   `fn` throws (and then the id is forgotten).
   */
  async run(id: string, digest: string, fn: () => Promise<T>): Promise<{ result: T; replayed: boolean }> {
    this.prune();
    const known = this.entries.get(id);
    if (known) {
      if (known.digest !== digest) {
        throw new HoldfastError('IDEMPOTENCY_CONFLICT', `operation_id "${id}" was already used for another action or other parameters; use a new operation_id for a different action`, {
          retryable: false,
          details: { operation_id: id },
        });
      }
      return { result: await known.outcome, replayed: true };
    }
    const outcome = fn();
    const entry: Entry<T> = { digest, outcome, at: this.now() };
    this.entries.set(id, entry);
    try {
      return { result: await outcome, replayed: false };
    } catch (err) {
      if (this.entries.get(id) === entry) this.entries.delete(id);
      throw err;
    }
  }

  /** Ids remembered right now. */
  get size(): number {
    this.prune();
    return this.entries.size;
  }

  private prune(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [id, e] of this.entries) if (e.at < cutoff) this.entries.delete(id);
    while (this.entries.size > this.keep) this.entries.delete(this.entries.keys().next().value!);
  }
}
