/**
 * Quota and reclaim rules (DESIGN §4.3, issue 18): at most `max_live` live guardians; when full,
 * an open reclaims the oldest idle session that never executed anything and is either the
 * caller's own or was never used by any tool call; if there is none the open fails with
 * `QUOTA_EXCEEDED` and these counts. Another principal's session that saw any tool use is never
 * ended by someone else's open.
 */
export interface LiveSessionFacts {
  id: string;
  /** Owner of the session. */
  principal: string;
  busy: boolean;
  everExecuted: boolean;
  /** A tool call used it after the open that created it (read, edit, execute, observe, attach…). */
  used: boolean;
  /** Milliseconds since the last PTY output, instruction or tool use. */
  idleMs: number;
  /** Latest of the guardian's PTY and instruction clocks and the daemon's last tool use, epoch ms. */
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

/**
 * The session an open by `principal` may reclaim: never executed, not busy, reachable, the
 * caller's own or never used by a tool — the least recently active of those.
 */
export function pickReclaimable(facts: readonly LiveSessionFacts[], principal: string): string | null {
  const candidates = facts.filter((f) => f.reachable && !f.busy && !f.everExecuted && (f.principal === principal || !f.used));
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => a.lastActivityAt - b.lastActivityAt);
  return candidates[0]!.id;
}

/**
 * Live sessions one principal may hold: `sessions.max_live_per_principal` when set, else half of
 * `max_live` rounded up; never more than `max_live` (docs/sessions.md "Quota").
 */
export function maxLivePerPrincipal(maxLive: number, configured: number | undefined): number {
  return Math.min(maxLive, configured ?? Math.ceil(maxLive / 2));
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
