import { DesktopLimits, HoldfastError, newId, type Rect, type Size } from '@holdfast/shared/protocol';

/** One screenshot the agent may act on: how its image pixels map back to the framebuffer. */
export interface Observation {
  id: string;
  sourceRect: Rect;
  imageSize: Size;
  generation: number;
  geometryEpoch: number;
  display: number;
  frameId: number;
  createdAt: number;
  expiresAt: number;
}

/**
 * The live observations of one desktop session (issue 15 §5): at most
 * {@link DesktopLimits.MAX_OBSERVATIONS} (the next one evicts the oldest), each accepted for
 * {@link DesktopLimits.OBSERVATION_TTL_MS}; {@link endAll} ends every one at once (display switch,
 * reconnect, size change). A refused id answers `OBSERVATION_EXPIRED` saying why, so the agent
 * knows to take a new screenshot. The clock is injectable for tests.
 */
export class ObservationStore {
  private readonly live = new Map<string, Observation>();
  /** Why recent observations ended (bounded), for a precise refusal. */
  private readonly ended = new Map<string, string>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly max: number = DesktopLimits.MAX_OBSERVATIONS,
    private readonly ttlMs: number = DesktopLimits.OBSERVATION_TTL_MS,
  ) {}

  /** Live observations right now (expired ones dropped). */
  get size(): number {
    this.dropExpired();
    return this.live.size;
  }

  /** Records a new observation (evicting the oldest beyond the limit) and returns it. */
  add(o: Omit<Observation, 'id' | 'createdAt' | 'expiresAt'>): Observation {
    this.dropExpired();
    const at = this.now();
    const obs: Observation = { ...o, id: newId('observation'), createdAt: at, expiresAt: at + this.ttlMs };
    this.live.set(obs.id, obs);
    while (this.live.size > this.max) {
      const oldest = this.live.keys().next().value!;
      this.live.delete(oldest);
      this.remember(oldest, `it was evicted by newer screenshots (at most ${this.max} live)`);
    }
    return obs;
  }

  /**
   * The live observation `id`.
   * @throws HoldfastError `OBSERVATION_EXPIRED` when it is unknown, older than the TTL, evicted or
   *   ended (`details.reason` says which).
   */
  get(id: string): Observation {
    const obs = this.live.get(id);
    if (obs && this.now() <= obs.expiresAt) return obs;
    if (obs) {
      this.live.delete(id);
      this.remember(id, `it is older than ${this.ttlMs / 1000} s`);
    }
    const why = this.ended.get(id) ?? 'it is not an observation of this desktop session';
    throw new HoldfastError('OBSERVATION_EXPIRED', `observation ${id} cannot be acted on: ${why}; take a new screenshot and use its observation_id`, {
      retryable: false,
      details: { observation_id: id, reason: why },
    });
  }

  /** Ends every live observation at once with `reason` (e.g. "the display changed"). */
  endAll(reason: string): number {
    const n = this.live.size;
    for (const id of this.live.keys()) this.remember(id, reason);
    this.live.clear();
    return n;
  }

  private dropExpired(): void {
    const t = this.now();
    for (const [id, o] of this.live) {
      if (t > o.expiresAt) {
        this.live.delete(id);
        this.remember(id, `it is older than ${this.ttlMs / 1000} s`);
      }
    }
  }

  private remember(id: string, reason: string): void {
    this.ended.set(id, reason);
    while (this.ended.size > 4 * this.max) this.ended.delete(this.ended.keys().next().value!);
  }
}
