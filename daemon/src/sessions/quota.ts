/**
 * Quota and reclaim rules (DESIGN §4.3): at most `max_live` live guardians; when full, an open
 * reclaims the oldest idle session that never executed anything; if there is none the open fails
 * with `QUOTA_EXCEEDED` and these counts.
 */
export interface LiveSessionFacts {
  id: string;
  busy: boolean;
  everExecuted: boolean;
  /** Milliseconds since the last PTY output or instruction. */
  idleMs: number;
  lastActivityAt: number;
  /** Whether the guardian answered (an unreachable one is never reclaimed by guess). */
  reachable: boolean;
}

export interface QuotaCounts {
  live: number;
  max_live: number;
  busy: number;
  idle_executed: number;
  never_executed: number;
}

/** The session to reclaim: never executed, not busy, reachable, least recently active. */
export function pickReclaimable(facts: readonly LiveSessionFacts[]): string | null {
  const candidates = facts.filter((f) => f.reachable && !f.busy && !f.everExecuted);
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => a.lastActivityAt - b.lastActivityAt);
  return candidates[0]!.id;
}

/** Counts for the `QUOTA_EXCEEDED` error details. */
export function quotaCounts(facts: readonly LiveSessionFacts[], maxLive: number): QuotaCounts {
  return {
    live: facts.length,
    max_live: maxLive,
    busy: facts.filter((f) => f.busy).length,
    idle_executed: facts.filter((f) => !f.busy && f.everExecuted).length,
    never_executed: facts.filter((f) => !f.busy && !f.everExecuted).length,
  };
}

/**
 * Sessions the reaper or `prune` should end: not busy and idle longer than `ttlMs(tier)` (or
 * than `idleOverrideMs` when given; 0 = every idle session).
 */
export function pickExpired(facts: readonly LiveSessionFacts[], ttlMs: (everExecuted: boolean) => number, idleOverrideMs?: number): string[] {
  return facts
    .filter((f) => f.reachable && !f.busy)
    .filter((f) => f.idleMs >= (idleOverrideMs ?? ttlMs(f.everExecuted)))
    .map((f) => f.id);
}
