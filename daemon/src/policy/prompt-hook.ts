import { canonicalPath } from './paths.js';
import { readOnlyLabel } from './read-only.js';
import type { SimpleCommand } from './script-scan.js';
import type { ShellWord } from './shell-syntax.js';
import { commandName, unwrap, type CommandView } from './wrappers.js';

/**
 * holdfast's prompt hook (guardian/src/shell-integration.ts, DESIGN §5): the session's bash prints
 * the end-of-command marker from `PROMPT_COMMAND` (function `__hf_d`), the start marker from `PS0`,
 * and re-arms both in `__hf_p`; `integration.sh` defines them with the variables `__hf_n` (the
 * nonce) and `__hf_envf` (a file sourced at every prompt). A command that changes any of this can
 * fake or hide a command's end, or make every later prompt run code no rule judged. The variables
 * `PROMPT_COMMAND`, `PS0`–`PS4` and `__hf_*` are on environment.ts's list (every spelling of an
 * assignment asks); this file holds what is not an assignment (review round 5):
 *
 * - `trap … DEBUG|RETURN|ERR` (any case, with or without `SIG`, also `trap - DEBUG`): the DEBUG
 *   trap runs before every command, RETURN after every function (the hook's included);
 * - `set ±T`, `set ±o functrace`, `shopt ±s|u extdebug`: change when those traps run and let a
 *   DEBUG trap skip commands;
 * - defining or removing a function the hook calls (`__hf_*`), or defining one named like a shell
 *   builtin the hook uses (`local`, `return`, `printf`, …: a function takes precedence over a builtin);
 * - `source`/`.` of a file written earlier in the same line, or of a substitution's output
 *   (`source <(…)`): the commands in it were never judged.
 *
 * Each needs confirmation (`built-in: prompt hook`).
 */

export const PROMPT_HOOK = 'built-in: prompt hook';

/** Signals whose traps run around every command or function in the shell. */
const HOOK_SIGNALS = /^(SIG)?(DEBUG|RETURN|ERR)$/i;

/** Builtins (and keywords bash lets a function shadow) that the hook or any script relies on. */
const SHADOWED_BUILTINS = new Set([
  'builtin', 'command', 'local', 'return', 'printf', 'read', 'echo', 'source', '.', 'eval', 'exec', 'set', 'unset', 'shopt', 'trap',
  'declare', 'typeset', 'export', 'readonly', 'test', '[', 'cd', 'pwd', 'type', 'hash', 'enable', 'true', 'false', ':', 'history', 'let',
  'kill', 'wait', 'exit', 'logout', 'alias', 'unalias', 'bind', 'caller', 'compgen', 'complete', 'dirs', 'disown', 'fc', 'fg', 'bg', 'getopts',
  'help', 'jobs', 'mapfile', 'readarray', 'popd', 'pushd', 'shift', 'suspend', 'times', 'ulimit', 'umask',
]);

/** A function name whose definition (or removal) changes what the prompt hook runs, or why not (null). */
export function hookFunctionName(name: string): string | null {
  if (name.startsWith('__hf')) return `${name} is a function of holdfast's prompt hook, which prints the end of every command`;
  if (SHADOWED_BUILTINS.has(name)) return `a function named ${name} replaces the builtin of that name in every later command, holdfast's prompt hook included`;
  return null;
}

/** `trap`, `set`, `shopt`, `unset -f` changes to the hook (see the file comment); why, or null. */
export function promptHookChange(name: string, view: CommandView): string | null {
  const args = view.words.slice(1);
  switch (name) {
    case 'trap': {
      let k = 0;
      while (k < args.length && /^-[lp]+$/.test(args[k]!.text)) k++;
      if (k > 0 && k === args.length) return null; // `trap -p`, `trap -l`: only list
      if (args[k]?.text === '--') k++;
      // One word left: it is a signal whose trap is reset; more: the action, then signals.
      const signals = args.length - k === 1 ? args.slice(k) : args.slice(k + 1);
      const hit = signals.find((w) => w.dynamic || HOOK_SIGNALS.test(w.text));
      return hit ? `trap on ${hit.source} changes what runs around every command or function, holdfast's prompt hook included` : null;
    }
    case 'set': {
      for (let k = 0; k < args.length; k++) {
        const t = args[k]!.text;
        if (args[k]!.dynamic) return `set ${args[k]!.source} changes shell options only known at run time`;
        if ((t === '-o' || t === '+o') && args[k + 1] && (args[k + 1]!.dynamic || args[k + 1]!.text === 'functrace')) return `set ${t} ${args[k + 1]!.source} changes when DEBUG and RETURN traps run`;
        if (/^[-+][A-Za-z]*T/.test(t) && t !== '--') return `set ${t} changes when DEBUG and RETURN traps run`;
        if (t === '--' || t === '-') break;
      }
      return null;
    }
    case 'shopt':
      return args.some((w) => w.dynamic || w.text === 'extdebug') && args.some((w) => /^-[a-z]*[su]/.test(w.text)) ? `shopt ${args.map((w) => w.source).join(' ')} changes how the DEBUG trap runs (it can skip commands)` : null;
    case 'unset': {
      if (!args.some((w) => /^-[A-Za-z]*f/.test(w.text))) return null;
      // Removing a function that shadows a builtin only brings the builtin back: just the hook's own.
      const hit = args.find((w) => !w.text.startsWith('-') && (w.dynamic || w.text.startsWith('__hf')));
      return hit ? `unset -f ${hit.source} removes a function holdfast's prompt hook calls` : null;
    }
    default:
      return null;
  }
}

/** The script a `source`/`.` runs (`builtin source f`, `command . f`), or null for any other command. */
function sourcedScript(cmd: SimpleCommand): ShellWord | null {
  // Cheap pre-test: unwrapping every command of a line twice is measurable (timing.test.ts).
  if (!cmd.words.some((w) => w.text === 'source' || w.text === '.' || w.dynamic)) return null;
  const view = [...unwrap(cmd).views].reverse().find((v) => v.role === 'command');
  const head = view?.words[0];
  if (!view || !head || head.dynamic) return null;
  const name = commandName(head);
  if (name !== 'source' && name !== '.') return null;
  let k = 1;
  if (view.words[k]?.text === '--') k++;
  return view.words[k] ?? null;
}

/** Where a path word points, for comparing two spellings of one file; null when unknown. */
function placed(w: ShellWord, cwd: string | null): string | null {
  if (w.dynamic) return null;
  return canonicalPath(w.text, cwd) ?? w.text.replace(/^(\.\/)+/, '');
}

/**
 * `source`/`.` of a file this same line writes (`echo … > f; source f`, `cp x f && . f`), or of a
 * substitution's output (`source <(…)`): why, or null. Writers are redirections and the arguments
 * of commands that are not read-only.
 */
export function sourcesUnjudgedScript(cmd: SimpleCommand, line: readonly SimpleCommand[], cwd: string | null): string | null {
  const script = sourcedScript(cmd);
  if (script === null) return null;
  if (/\$\(|`|<\(/.test(script.source)) return `source ${script.source} runs the output of a command, which no rule judged`;
  const target = placed(script, cwd);
  if (target === null) return null;
  for (const other of line) {
    if (other === cmd) continue;
    const written = other.redirects.filter((r) => r.writes && r.target).map((r) => r.target!);
    const views = unwrap(other).views.filter((v) => v.role === 'command');
    for (const v of views) if (readOnlyLabel(v, other.redirects) === null) written.push(...v.words.slice(1).map((w) => ({ ...w, text: w.text.slice(w.text.indexOf('=') + 1) })));
    if (written.some((w) => placed(w, cwd) === target)) return `source ${script.source} runs a file this line writes, whose commands no rule judged`;
  }
  return null;
}
