import { readFileSync } from 'node:fs';

/**
 * Process identity on Linux: the start time of a pid (field 22 of `/proc/<pid>/stat`, clock ticks
 * since boot). A pid alone can be reused; pid + start time cannot (DESIGN §4.5).
 * Returns null when the process does not exist (or /proc is unavailable).
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); field 22 is rest[19].
    const start = rest[19];
    return start && /^\d+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}

/** State letter of a pid (`R`, `S`, `Z`, …) or null if gone. A zombie counts as gone for us. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

/** True when `pid` runs, is not a zombie, and (if given) still has the recorded start time. */
export function isProcessAlive(pid: number, startTime?: string | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const state = processState(pid);
  if (state === null || state === 'Z' || state === 'X') return false;
  if (startTime) return processStartTime(pid) === startTime;
  return true;
}
