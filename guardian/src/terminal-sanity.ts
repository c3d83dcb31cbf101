import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * When the shell restores its terminal modes at the next prompt (issue 9, item 7).
 *
 * Restoring needs `stty` — a fork and an exec, about 1.3 ms, four times the cost of the rest of a
 * trivial command's round trip — so the prompt does it only when this file exists
 * (`<shell dir>/tty-restore`, checked with a `stat`, no fork). The guardian creates it as soon as
 * the running command may leave the terminal changed:
 *
 * - its text runs a terminal-mode tool (`stty`, `tput`, `tset`, `setterm`, `reset`);
 * - it was interactive: it waited for input, got input or keys, or was stopped;
 * - a person typed it (a `typed_<n>` command).
 *
 * and removes it once the next prompt is complete. A program that bash sees killed by a signal is
 * restored by bash itself (to the modes after the last command that exited normally). What this
 * misses: a non-interactive program that changes the modes and exits normally without any of the
 * above — the screen-mode reset still runs at every prompt.
 */
export class TerminalSanity {
  private readonly flag: string;
  private requested = false;

  constructor(shellDir: string) {
    this.flag = restoreFlagPath(shellDir);
  }

  /** The next prompt restores the terminal modes. */
  request(): void {
    if (this.requested) return;
    this.requested = true;
    try {
      writeFileSync(this.flag, '', { mode: 0o600 });
    } catch {
      // the session folder is gone: nothing to restore into
    }
  }

  /** A prompt is complete: its restore (if any) is done. */
  done(): void {
    if (!this.requested) return;
    this.requested = false;
    rmSync(this.flag, { force: true });
  }

  /** Requests a restore when `command` runs a terminal-mode tool. */
  noteCommand(command: string): void {
    if (TERMINAL_TOOLS.test(command)) this.request();
  }
}

/** The flag file of a session's shell folder (prompt-hygiene.ts checks it). */
export function restoreFlagPath(shellDir: string): string {
  return join(shellDir, 'tty-restore');
}

/** Commands that change terminal modes by design. */
const TERMINAL_TOOLS = /(^|[^\w./-])(stty|tput|tset|setterm|reset)(\s|$|;|&|\|)/;
