import { KillGraces } from '@holdfast/shared/protocol';
import { isLive, listProcesses, type ProcStat } from '@holdfast/shared/protocol';

/**
 * Kill escalation (DESIGN §4.4): SIGHUP → SIGTERM → SIGKILL, each followed by a grace during which
 * the table is polled; it stops as soon as nothing matching is left. Interactive bash ignores
 * SIGTERM and sometimes SIGHUP right after its first prompt (peers-and-field-failures §6), so the
 * escalation always goes on to SIGKILL when needed.
 *
 * Targets are selected from the process table, not from remembered pids: every process whose
 * session id or process group id is one of the targets is signalled, so a grandchild that
 * outlived its parent (reparented to init) dies too. The guardian itself is never a target.
 */
export interface KillTargets {
  /** Terminal sessions (field 6 of /proc/<pid>/stat): the shell's, a task's. */
  sessions?: readonly number[];
  /** Process groups (field 5): a task's, the foreground job's. */
  groups?: readonly number[];
}

export interface KillOutcome {
  /** Signals that were sent (an empty list: nothing was alive). */
  sent: NodeJS.Signals[];
  /** Pids still alive after SIGKILL and its grace (should be empty). */
  survivors: number[];
}

/** Grace after each signal, ms (defaults: {@link KillGraces}). */
export interface Graces {
  AFTER_SIGHUP_MS: number;
  AFTER_SIGTERM_MS: number;
  AFTER_SIGKILL_MS: number;
}

const POLL_MS = 25;

/** Live processes matching `targets` (never this process). */
export function findTargets(targets: KillTargets): ProcStat[] {
  const sids = new Set(targets.sessions ?? []);
  const pgids = new Set(targets.groups ?? []);
  sids.delete(process.pid);
  pgids.delete(process.pid);
  if (sids.size === 0 && pgids.size === 0) return [];
  return listProcesses().filter((p) => p.pid !== process.pid && isLive(p) && (sids.has(p.sid) || pgids.has(p.pgrp)));
}

function signalAll(targets: KillTargets, victims: ProcStat[], sig: NodeJS.Signals): void {
  for (const g of targets.groups ?? []) {
    if (g > 1 && g !== process.pid) {
      try {
        process.kill(-g, sig);
      } catch {
        // group empty or gone
      }
    }
  }
  for (const v of victims) {
    try {
      process.kill(v.pid, sig);
    } catch {
      // gone meanwhile
    }
  }
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until nothing matches or `ms` passed; returns what is left. */
async function waitGone(targets: KillTargets, ms: number): Promise<ProcStat[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = findTargets(targets);
    if (left.length === 0 || Date.now() >= until) return left;
    await delay(Math.min(POLL_MS, Math.max(1, until - Date.now())));
  }
}

/**
 * Escalates SIGHUP → SIGTERM → SIGKILL over every process of `targets` (see {@link KillTargets}).
 * Resolves when nothing matching is alive, or after the SIGKILL grace with the survivors listed.
 */
export async function killEscalate(targets: KillTargets, graces: Graces = KillGraces): Promise<KillOutcome> {
  const steps: Array<[NodeJS.Signals, number]> = [
    ['SIGHUP', graces.AFTER_SIGHUP_MS],
    ['SIGTERM', graces.AFTER_SIGTERM_MS],
    ['SIGKILL', graces.AFTER_SIGKILL_MS],
  ];
  const sent: NodeJS.Signals[] = [];
  let victims = findTargets(targets);
  for (const [sig, grace] of steps) {
    if (victims.length === 0) return { sent, survivors: [] };
    signalAll(targets, victims, sig);
    sent.push(sig);
    victims = await waitGone(targets, grace);
  }
  return { sent, survivors: victims.map((v) => v.pid) };
}
