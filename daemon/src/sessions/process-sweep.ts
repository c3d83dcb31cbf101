import { readFileSync } from 'node:fs';
import { isLive, isProcessAlive, KillGraces, listProcesses } from '@holdfast/shared/protocol';

/**
 * Backstop of DESIGN §4.4 ("after kill, prune or TTL no process started for the session
 * remains"): every process a guardian starts inherits `HOLDFAST_SESSION=<gid>`, so after the
 * guardian's own kill escalation the daemon sweeps the process table for that marker and kills
 * whatever is left (SIGHUP → SIGTERM → SIGKILL). A process that scrubbed its environment and left
 * the session's process groups is out of reach; that is documented in docs/sessions.md.
 */
export function findSessionProcesses(gid: string): number[] {
  const marker = `HOLDFAST_SESSION=${gid}`;
  const found: number[] = [];
  for (const p of listProcesses()) {
    if (p.pid === process.pid || !isLive(p)) continue;
    try {
      if (readFileSync(`/proc/${p.pid}/environ`, 'latin1').split('\0').includes(marker)) found.push(p.pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  let alive = pids.filter((p) => isProcessAlive(p));
  while (alive.length > 0 && Date.now() < until) {
    await delay(20);
    alive = alive.filter((p) => isProcessAlive(p));
  }
  return alive;
}

function signalAll(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

/** Kills the given pids with escalation; resolves with the pids still alive (normally none). */
export async function killWithEscalation(pids: number[]): Promise<number[]> {
  if (pids.length === 0) return [];
  signalAll(pids, 'SIGHUP');
  let alive = await waitGone(pids, KillGraces.AFTER_SIGHUP_MS);
  if (alive.length === 0) return alive;
  signalAll(alive, 'SIGTERM');
  alive = await waitGone(alive, KillGraces.AFTER_SIGTERM_MS);
  if (alive.length === 0) return alive;
  signalAll(alive, 'SIGKILL');
  return waitGone(alive, KillGraces.AFTER_SIGKILL_MS);
}

/** Sweeps and kills every remaining process of a session; returns how many it had to kill. */
export async function sweepSession(gid: string): Promise<number> {
  const pids = findSessionProcesses(gid);
  await killWithEscalation(pids);
  return pids.length;
}
