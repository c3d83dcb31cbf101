import { readFileSync } from 'node:fs';
import { listProcesses, procLink, readProcStat } from '@holdfast/shared/protocol';

/**
 * Is the foreground of the terminal waiting for terminal input? (DESIGN §5 "awaiting input")
 *
 * Kernel evidence: the terminal's foreground process group is `tpgid` of the shell
 * (`/proc/<shell>/stat` field 8); for each member — every process of that group, whatever it is
 * (a child of a pipeline, a program a script started) — `/proc/<pid>/syscall` tells whether it
 * is blocked in `read` on a descriptor that is the terminal, by whichever name it was opened
 * (issue 9, item 6): our PTY slave (`/dev/pts/N`, also reached through `/proc/self/fd/0` or
 * `/dev/stdin`) or `/dev/tty`, the process's controlling terminal — which is how `getpass`,
 * `sudo`, `ssh` and `su` ask for passwords. Where that file cannot be read (another user's or a
 * set-uid process such as `su`), `wchan` is used (`n_tty_read`/`wait_woken`); where neither can
 * be read the probe says `unknown` and the caller looks at the screen. A member blocked in
 * poll/select/epoll may be waiting for the terminal too (readline-style programs): that is
 * reported separately, and the caller combines it with a prompt-looking screen line
 * ({@link looksLikePrompt}).
 */
export interface TtyProbe {
  /** A foreground member is blocked reading the terminal. */
  readingTty: boolean;
  /** A foreground member waits in poll/select/epoll (could be the terminal). */
  polling: boolean;
  /** The kernel evidence could not be read (no /proc/<pid>/syscall or wchan). */
  unknown: boolean;
}

// Syscall numbers by architecture: read-like and poll-like calls.
const READ_CALLS: Record<string, number[]> = {
  x64: [0, 17, 19], // read, pread64, readv
  arm64: [63, 65, 67], // read, readv, pread64
};
const POLL_CALLS: Record<string, number[]> = {
  x64: [7, 23, 232, 270, 271, 281, 441], // poll, select, epoll_wait, pselect6, ppoll, epoll_pwait, epoll_pwait2
  arm64: [22, 72, 73, 441], // epoll_pwait, pselect6, ppoll, epoll_pwait2
};

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'latin1').trim();
  } catch {
    return null;
  }
}

/** Probes the foreground process group of the shell's terminal (`ptsPath`, e.g. `/dev/pts/3`). */
export function probeForeground(shellPid: number, ptsPath: string | null): TtyProbe {
  const result: TtyProbe = { readingTty: false, polling: false, unknown: false };
  const shell = readProcStat(shellPid);
  if (!shell || shell.tpgid <= 0) {
    result.unknown = true;
    return result;
  }
  const members = shell.tpgid === shell.pgrp ? [shellPid] : listProcesses().filter((p) => p.pgrp === shell.tpgid && p.state !== 'Z').map((p) => p.pid);
  const reads = READ_CALLS[process.arch] ?? [];
  const polls = POLL_CALLS[process.arch] ?? [];
  for (const pid of members) {
    const sc = readText(`/proc/${pid}/syscall`);
    if (sc && sc !== 'running') {
      const parts = sc.split(' ');
      const nr = Number(parts[0]);
      if (reads.includes(nr)) {
        const fd = Number.parseInt(parts[1] ?? '', 16);
        const target = Number.isFinite(fd) ? procLink(pid, `fd/${fd}`) : null;
        if (target !== null && isTerminal(target, ptsPath)) result.readingTty = true;
        else if (target === null) result.unknown = true;
      } else if (polls.includes(nr)) {
        result.polling = true;
      }
      continue;
    }
    if (sc === 'running') continue;
    const wchan = readText(`/proc/${pid}/wchan`);
    if (wchan === null || wchan === '0') {
      result.unknown = true;
    } else if (wchan === 'n_tty_read' || wchan === 'wait_woken') {
      result.readingTty = true;
    } else if (/poll|select|epoll/.test(wchan)) {
      result.polling = true;
    }
  }
  return result;
}

/** What the kernel says about the shell itself after it printed its prompt (see {@link shellPromptEvidence}). */
export type PromptEvidence = 'at_prompt' | 'busy' | 'foreground_job' | 'unknown';

/**
 * Is the shell itself waiting for a command line? (issue 18: authenticating the command-end
 * marker.) True evidence: the terminal's foreground process group is the shell's own (no job
 * runs in the foreground) and the shell is blocked waiting for the terminal — readline in
 * `pselect6`/`poll`, or `read` on the PTY. A program that printed a fake end marker is either in
 * the foreground itself (`foreground_job`) or runs while the shell executes something else
 * (`busy`); `unknown` when /proc cannot tell (then the marker is taken as it is).
 */
export function shellPromptEvidence(shellPid: number, ptsPath: string | null): PromptEvidence {
  const shell = readProcStat(shellPid);
  if (!shell || shell.tpgid <= 0) return 'unknown';
  if (shell.tpgid !== shell.pgrp) return 'foreground_job';
  const sc = readText(`/proc/${shellPid}/syscall`);
  if (sc === null) {
    const wchan = readText(`/proc/${shellPid}/wchan`);
    if (wchan === null || wchan === '0') return 'unknown';
    return wchan === 'n_tty_read' || wchan === 'wait_woken' || /poll|select/.test(wchan) ? 'at_prompt' : 'busy';
  }
  if (sc === 'running') return 'busy';
  const parts = sc.split(' ');
  const nr = Number(parts[0]);
  if ((POLL_CALLS[process.arch] ?? []).includes(nr)) return 'at_prompt';
  if ((READ_CALLS[process.arch] ?? []).includes(nr)) {
    const fd = Number.parseInt(parts[1] ?? '', 16);
    const target = Number.isFinite(fd) ? procLink(shellPid, `fd/${fd}`) : null;
    return target !== null && (ptsPath === null || target === ptsPath) ? 'at_prompt' : 'busy';
  }
  return 'busy';
}

/**
 * Is `target` (what `/proc/<pid>/fd/<n>` links to) the session's terminal? `/dev/tty` always is
 * for a member of the terminal's foreground group: it names the process's controlling terminal.
 */
function isTerminal(target: string, ptsPath: string | null): boolean {
  if (target === '/dev/tty') return true;
  return ptsPath === null ? target.startsWith('/dev/pts/') : target === ptsPath;
}

/**
 * True when the text before the cursor looks like a question waiting for an answer:
 * `Name? `, `Password:`, `>>> `, `(y/n)`, `[Y/n] `, `Continue? [yes/no]` …
 */
export function looksLikePrompt(beforeCursor: string): boolean {
  const t = beforeCursor.replace(/\s+$/, '');
  if (t.length === 0) return false;
  return /(?:[?:>$#%»❯›]|\(y\/n\)|\[y\/n\]|\(yes\/no\)|\[yes\/no\])$/i.test(t);
}
