import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Reading the Linux process table (`/proc/<pid>/stat`): process identity (pid + start time — a
 * pid alone can be reused, DESIGN §4.5), and the ids needed to find every process of a terminal
 * session or process group (DESIGN §4.4) and a terminal's foreground process group (DESIGN §5).
 * Used by the guardian (kill escalation, input probes) and the daemon (recovery, sweeps).
 */
export interface ProcStat {
  pid: number;
  /** State letter (`R`, `S`, `Z`, …). */
  state: string;
  ppid: number;
  /** Process group id (field 5). */
  pgrp: number;
  /** Session id (field 6). */
  sid: number;
  /** Foreground process group of the controlling terminal (field 8), -1 without one. */
  tpgid: number;
  /** Start time in clock ticks since boot (field 22). */
  startTime: string;
}

/** Parses `/proc/<pid>/stat`; null when the process is gone (or /proc is unavailable). */
export function readProcStat(pid: number): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain anything: split after the last ')'.
  // rest[0] is field 3 (state).
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    sid: Number(rest[3]),
    tpgid: Number(rest[5]),
    startTime: rest[19] ?? '',
  };
}

/** Every process visible in /proc (zombies included; filter with {@link isLive}). */
export function listProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const n of names) {
    const c = n.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const s = readProcStat(Number(n));
    if (s) out.push(s);
  }
  return out;
}

/** True for a process that still runs (not a zombie, not gone). */
export function isLive(s: ProcStat): boolean {
  return s.state !== 'Z' && s.state !== 'X' && s.state !== 'x';
}

/** Target of the `readlink` of `/proc/<pid>/<what>` (`cwd`, `exe`, `fd/0`…), or null. */
export function procLink(pid: number, what: string): string | null {
  try {
    return readlinkSync(`/proc/${pid}/${what}`);
  } catch {
    return null;
  }
}

/** Start time of a pid (see {@link ProcStat.startTime}); null when it does not exist. */
export function processStartTime(pid: number): string | null {
  const s = readProcStat(pid);
  return s && /^\d+$/.test(s.startTime) ? s.startTime : null;
}

/** State letter of a pid or null if gone. */
export function processState(pid: number): string | null {
  return readProcStat(pid)?.state ?? null;
}

/** True when `pid` runs, is not a zombie, and (if given) still has the recorded start time. */
export function isProcessAlive(pid: number, startTime?: string | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const s = readProcStat(pid);
  if (s === null || !isLive(s)) return false;
  return startTime ? s.startTime === startTime : true;
}

/**
 * True when `pid` is the very process that was recorded: alive, not a zombie, with exactly this
 * start time. Without a start time nothing is identified, so the answer is false (issue 18: a
 * manifest without a verifiable start time is never acted on — its pid could be anyone's).
 */
export function isSameProcess(pid: number, startTime: string | null | undefined): boolean {
  return typeof startTime === 'string' && /^\d+$/.test(startTime) && isProcessAlive(pid, startTime);
}

/** Real uid of a process (`/proc/<pid>/status`), or null when it is gone. */
export function processUid(pid: number): number | null {
  try {
    const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
