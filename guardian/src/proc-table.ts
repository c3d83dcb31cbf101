import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Reading the Linux process table (`/proc/<pid>/stat`): the ids the guardian needs to find every
 * process of a terminal session or process group (DESIGN §4.4) and the terminal's foreground
 * process group (awaiting-input detection, DESIGN §5).
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
}

/** Parses `/proc/<pid>/stat`; null when the process is gone. */
export function readProcStat(pid: number): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain anything: split after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    sid: Number(rest[3]),
    tpgid: Number(rest[5]),
  };
}

/** Every process visible in /proc (zombies included; filter on `state`). */
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

/** Target of the `readlink` of `/proc/<pid>/<what>`, or null. */
export function procLink(pid: number, what: string): string | null {
  try {
    return readlinkSync(`/proc/${pid}/${what}`);
  } catch {
    return null;
  }
}
