import { KEY_SEQUENCES } from '@holdfast/shared/protocol';
import { findUnsafeCharacter } from './text-safety.js';

/**
 * Judging `execute(action="stdin")` input (issue 5; docs/command-policy.md "stdin"). Text typed
 * into the terminal is an answer to the running program, never a new command: whatever reaches
 * the shell after the program reads its line (or ends) would run unjudged and unaudited. So one
 * stdin call carries **at most one line**:
 *
 * - at most one line terminator in all — `\n`, `\r`, `\r\n` at the very end of `text`, or an
 *   `Enter` key — and nothing after it (the guardian writes the text first, then the keys);
 * - `Ctrl-C`, `Ctrl-D` and `Ctrl-Z` (which end or suspend the program, handing the terminal back
 *   to the shell) only as the very last key, and never together with a line terminator;
 * - no NUL or other control character inside `text` (tab excepted): control keys are sent as
 *   named keys (`Esc`, `Backspace`, `Ctrl-U`, arrows…), so what was sent is what is audited;
 * - only known key names.
 */

export interface StdinInput {
  text?: string;
  keys?: readonly string[];
}

export interface StdinVerdict {
  decision: 'allow' | 'deny';
  /** One sentence for the model; for a refusal it says how to send the input instead. */
  reason: string;
}

const ENDING_KEYS = new Set(['Ctrl-C', 'Ctrl-D', 'Ctrl-Z']);
const ONE_LINE = 'send one line per stdin call: the answer, then Enter (or text ending in a newline) as the last thing';

function deny(why: string): StdinVerdict {
  return { decision: 'deny', reason: `refused: ${why}` };
}

/**
 * Judges one stdin call (see the file comment). Pure.
 * @returns `allow`, or `deny` with a reason that says what to send instead.
 */
export function evaluateStdin(input: StdinInput): StdinVerdict {
  const text = input.text ?? '';
  const keys = input.keys ?? [];
  const unknown = keys.filter((k) => !Object.prototype.hasOwnProperty.call(KEY_SEQUENCES, k));
  if (unknown.length > 0) return deny(`unknown key ${unknown.join(', ')}; keys are ${Object.keys(KEY_SEQUENCES).join(', ')}`);

  // The text: its body must be one line of plain characters; a terminator only at its end.
  let body = text;
  let textEnds = false;
  if (body.endsWith('\r\n')) body = body.slice(0, -2);
  else if (body.endsWith('\n') || body.endsWith('\r')) body = body.slice(0, -1);
  textEnds = body.length !== text.length;
  const inner = body.search(/[\r\n]/);
  if (inner >= 0) return deny(`the text holds more than one line (a line break at character ${inner + 1}); whatever follows the first line would reach the shell as a new, unjudged command; ${ONE_LINE}`);
  const bad = findUnsafeCharacter(body, '\t');
  if (bad) return deny(`the text contains ${bad.name} at character ${bad.index + 1}; send control keys as named keys (${Object.keys(KEY_SEQUENCES).join(', ')})`);

  // The keys: Enter only last; nothing after a key that ends the program.
  const enters = keys.filter((k) => k === 'Enter').length;
  if (textEnds && keys.length > 0) return deny(`keys (${keys.join(', ')}) follow the line break that ends the text; ${ONE_LINE}`);
  if (enters > 1 || (enters === 1 && keys[keys.length - 1] !== 'Enter')) return deny(`Enter must be sent once, as the last key (got ${keys.join(', ')}); ${ONE_LINE}`);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (!ENDING_KEYS.has(k)) continue;
    if (i !== keys.length - 1) return deny(`${k} ends or suspends the running program, so the keys after it (${keys.slice(i + 1).join(', ')}) would be typed into the shell; send ${k} as the last key of its own call`);
    if (textEnds) return deny(`${k} after a complete line would reach the shell; ${ONE_LINE}`);
  }
  return { decision: 'allow', reason: `one line of input${textEnds || enters === 1 ? '' : ' (no line break)'}${keys.length ? ` with keys ${keys.join(', ')}` : ''}` };
}
