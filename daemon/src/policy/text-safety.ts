/**
 * Characters the command policy never lets through (issue 5, docs/command-policy.md "Always
 * refused"). The policy judges text; bash and the terminal must then see exactly that text.
 *
 * - NUL ends a C string: bash (and `execve`) stop at it, so `rm -rf /tmp/victim\0x` would be
 *   judged as one path and run as another.
 * - Other C0 controls and DEL are acted on by the terminal line discipline or readline when typed
 *   into the PTY (`\x03` interrupts, `\x15` erases the line, `\x04` ends input, `\x1b` starts an
 *   escape sequence, `\r` ends the line, `\x7f` erases a character): what runs would not be what
 *   was judged. `\t` and `\n` are kept (they are ordinary shell whitespace).
 * - C1 controls (U+0080–U+009F) are the 8-bit forms of the same escapes for some terminals.
 * - Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069) make a
 *   command display differently from what it is, so a user could confirm something they did not
 *   see.
 */

/** One refused character: its index in the string and a readable name (`U+0000 NUL`). */
export interface UnsafeCharacter {
  index: number;
  code: number;
  name: string;
}

const C0_NAMES = ['NUL', 'SOH', 'STX', 'ETX (Ctrl-C)', 'EOT (Ctrl-D)', 'ENQ', 'ACK', 'BEL', 'BS', 'TAB', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI', 'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK (Ctrl-U)', 'SYN', 'ETB', 'CAN', 'EM', 'SUB (Ctrl-Z)', 'ESC', 'FS', 'GS', 'RS', 'US'];

/** Any character of the kinds in the file comment (a fast pre-test; `\t` and `\n` excluded). */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** Readable name of a code point, for refusal messages. */
export function characterName(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code < 0x20) return `${hex} ${C0_NAMES[code]}`;
  if (code === 0x7f) return `${hex} DEL`;
  if (code >= 0x80 && code <= 0x9f) return `${hex} (C1 control)`;
  return `${hex} (bidirectional control)`;
}

/**
 * The first character of `text` that the policy refuses (see the file comment), or null.
 * `allow` lists extra characters that are fine in this context (e.g. `\r` at the end of a stdin
 * line is checked by its caller). `\t` and `\n` are always fine.
 */
export function findUnsafeCharacter(text: string, allow = ''): UnsafeCharacter | null {
  if (!UNSAFE.test(text)) return null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (UNSAFE.test(c) && !allow.includes(c)) {
      const code = c.charCodeAt(0);
      return { index: i, code, name: characterName(code) };
    }
  }
  return null;
}

/** The unsafe characters of the file comment plus line breaks and tabs, for one-line display. */
// eslint-disable-next-line no-control-regex
const UNSAFE_ON_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` made safe to show a user as part of a one-line summary (a confirmation, a move_out
 * preview): every character of the file comment, and `\n`, `\r`, `\t`, becomes a visible escape
 * (`\n`, `\u001B`, `\u202E`), so an agent-chosen purpose or file name cannot draw a fake line,
 * move the cursor or reverse the rest of the summary. Other text is unchanged.
 */
export function displaySafe(text: string): string {
  return text.replace(UNSAFE_ON_ONE_LINE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  });
}
