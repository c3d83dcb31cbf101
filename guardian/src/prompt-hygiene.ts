import { accessSync, constants as fsConstants } from 'node:fs';
import { join } from 'node:path';
import { shQuote } from './rc-files.js';
import { restoreFlagPath } from './terminal-sanity.js';

/**
 * What the shell does at every prompt, right after the end-of-command marker, so that each
 * foreground command starts in a sane terminal and the agent sees what it sent (issue 9):
 *
 * - **Terminal modes** (item 7): the termios settings the shell had once the user's files were
 *   loaded (`stty -g`) are restored when the guardian asked for it (terminal-sanity.ts: the flag
 *   file exists; `stty` costs a fork). A program stopped while it had echo off (`stty -echo`,
 *   `getpass`) or the terminal raw would otherwise leave every later command line invisible —
 *   readline echoes only when the terminal's ECHO flag is on — and `-isig` would make Ctrl-C
 *   (and `execute stop`) type a `^C` instead of interrupting.
 * - **Screen modes** (item 7): a fixed, cursor-preserving reset is printed: back to the normal
 *   screen buffer (`CSI ? 1047 l`, no cursor restore), full-screen scrolling region (inside
 *   DECSC/DECRC, so the cursor stays where it was), origin mode off, cursor visible,
 *   auto-wrap on, insert mode off, normal cursor and keypad keys, every mouse-tracking and
 *   focus-reporting mode off, the ASCII character set, default colours. The headless screen
 *   model, a human attached with `holdfast attach` and the PTY log replay all see it.
 * - **History** (item 8): a line the guardian typed as `__hf_c=…; eval …` is replaced in bash's
 *   history by the command as sent (`history -s`), so `history` shows `git commit -m "…"`,
 *   never holdfast's quoting.
 * - **TMOUT** (item 3): at every prompt, `TMOUT` is unset (bash would log an idle agent out);
 *   its value is recorded in `<state>/tmout` (`<seconds> [readonly]`), so when it cannot be unset
 *   (readonly, set by the machine's profile) the guardian recognises the idle logout for what it
 *   is and starts a new shell.
 */
export interface HygieneOptions {
  /** Absolute path of `stty`, or null when there is none (no termios restore then). */
  sttyPath: string | null;
  /** Folder where the shell records what the guardian must know (`tmout`). */
  stateDir: string;
}

/** Escape sequences printed at every prompt (see the file comment). */
export const SCREEN_RESET =
  '\x1b[?1047l' + // normal screen buffer (no cursor restore, unlike 1049)
  '\x1b7\x1b[?6l\x1b[r\x1b8' + // origin mode off, full scrolling region; cursor kept
  '\x1b[?25h\x1b[?7h\x1b[4l' + // cursor visible, auto-wrap on, replace mode
  '\x1b[?1l\x1b>' + // normal cursor keys and keypad
  '\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1004l' + // mouse tracking, focus events off
  '\x1b(B\x0f\x1b[0m'; // ASCII in G0, shift in, default attributes

/** `$'…'` form of a string of escape sequences. */
function ansiC(s: string): string {
  let out = "$'";
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    out += c < 0x20 || c === 0x7f ? `\\x${c.toString(16).padStart(2, '0')}` : ch === "'" || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}'`;
}

/** Finds `stty` in the usual places (the shell's PATH may change; this path does not). */
export function findStty(): string | null {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) {
    const p = join(dir, 'stty');
    try {
      accessSync(p, fsConstants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Shell text defining `__hf_hygiene` (call right after the end-of-command marker) and
 * `__hf_tmout` (call at the end of the prompt hook), and taking the termios snapshot. Both
 * functions preserve nothing the user's hooks need: they run between our markers.
 */
export function hygieneScript(o: HygieneOptions): string {
  const stty = o.sttyPath ? shQuote(o.sttyPath) : null;
  return `__hf_reset=${ansiC(SCREEN_RESET)}
${stty ? `__hf_tty=$(${stty} -g 2>/dev/null)` : '__hf_tty='}
__hf_hygiene() {
  ${stty ? `[[ -z $__hf_tty || ! -e ${shQuote(restoreFlagPath(o.stateDir))} ]] || ${stty} "$__hf_tty" 2>/dev/null` : ':'}
  builtin printf '%s' "$__hf_reset"
  if [[ -n \${__hf_c+x} ]]; then builtin shopt -oq history && builtin history -s -- "$__hf_c" 2>/dev/null; builtin unset __hf_c; fi
}
__hf_tmout() {
  if [[ -n \${TMOUT-} ]]; then
    builtin local __hf_v=$TMOUT
    builtin unset TMOUT
    builtin printf '%s %s\\n' "$__hf_v" "\${TMOUT:+readonly}" >| ${shQuote(join(o.stateDir, 'tmout'))}
  fi
} 2>/dev/null
`;
}
