/**
 * How a foreground command is typed into the shell (DESIGN §5).
 *
 * A command must reach bash as exactly ONE line so that it is one command with one `PS0`/
 * `PROMPT_COMMAND` pair, and it must never leave the shell waiting for a continuation line (PS2)
 * or trigger readline features (a TAB would complete, bytes ≥ 0x80 may become meta keys in a C
 * locale). So:
 *
 * - a short line of plain, shell-inert characters (`echo hi`, `cd /tmp`, `export X=1`) whose first
 *   word is not a reserved word is typed as is, so a human watching sees the command itself;
 * - everything else is typed as `__hf_c=$'…'; eval "$__hf_c"` with ANSI-C quoting: newlines,
 *   quotes, backslashes, control characters and every byte ≥ 0x80 are escaped, so the typed line
 *   is printable ASCII and complete — an unterminated quote becomes an `eval` syntax error
 *   (exit 2), not a hang. The screen and bash's history show the command, not this line (issue 9,
 *   item 8: the guardian rewrites the echo, the prompt rewrites the history entry);
 * - a command whose quoted form exceeds {@link CommandLimits.INLINE_EVAL_MAX_BYTES} (readline
 *   types ~5 ms/KB) is written to a 0600 file and typed as `__hf_c="$(<'file')"; eval "$__hf_c"`:
 *   the same `eval` semantics, a short line.
 */
import { CommandLimits } from './constants.js';

/** Characters that can never open a quote, a continuation or an expansion needing more input. */
const INERT = /^[A-Za-z0-9_\-./=:,+@%~ ]+$/;

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'function', 'time', 'coproc', 'in', '{', '}', '!', '[[', ']]']);

/** Quotes `s` as a bash ANSI-C string `$'…'` made of printable ASCII only. */
export function ansiCQuote(s: string): string {
  let out = "$'";
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x27) out += "\\'";
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x09) out += '\\t';
    else if (b === 0x0d) out += '\\r';
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(b);
  }
  return out + "'";
}

/**
 * The line to type for `command` (without the final Enter). `spill` writes a long text to a file
 * and returns its path (see the file comment). `display` is the command as the agent sent it
 * (issue 9, item 8: the daemon wraps a one-off cwd or env around it); it is what bash's history
 * keeps: every line not typed literally assigns it to `__hf_c` first, and the prompt (see
 * prompt-hygiene.ts) replaces the history entry of the typed line with it (`history -s`).
 */
export function commandLine(command: string, spill?: (text: string) => string, display: string = command): string {
  const trimmed = command.trim();
  const first = trimmed.split(' ')[0] ?? '';
  if (display === command && trimmed.length > 0 && command.length <= CommandLimits.LITERAL_COMMAND_MAX_BYTES && INERT.test(command) && !RESERVED.has(first)) {
    return command;
  }
  const same = display === command;
  const quoted = ansiCQuote(command);
  const shown = same ? '' : ansiCQuote(display);
  if (spill && quoted.length + shown.length > CommandLimits.INLINE_EVAL_MAX_BYTES) {
    const file = ansiCQuote(spill(command));
    if (same) return `__hf_c="$(<${file})"; eval "$__hf_c"`;
    return `__hf_c="$(<${ansiCQuote(spill(display))})"; eval "$(<${file})"`;
  }
  return same ? `__hf_c=${quoted}; eval "$__hf_c"` : `__hf_c=${shown}; eval ${quoted}`;
}

/**
 * Recovers the text of a line a human typed from its echo (the clean PTY bytes between the end
 * of the prompt and the command-start marker): escape sequences removed, `\r`/`\n` end it,
 * backspaces applied.
 */
export function typedLineFromEcho(echo: Buffer): string {
  const s = echo
    .toString('utf8')
    // OSC … BEL/ST, CSI … final, other two-byte escapes
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[@-_]/g, '');
  let line = '';
  for (const ch of s) {
    if (ch === '\r' || ch === '\n') break;
    if (ch === '\b' || ch === '\x7f') line = line.slice(0, -1);
    else if (ch >= ' ') line += ch;
  }
  return line.trim().slice(0, CommandLimits.TYPED_COMMAND_MAX_CHARS);
}
