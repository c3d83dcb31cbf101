import { literalWord, type ShellWord } from './shell-syntax.js';
import type { SimpleCommand } from './script-scan.js';

/**
 * Looking through wrapper commands (issue 5): `env`, `command`, `builtin`, `exec`, `nice`,
 * `nohup`, `timeout`, `xargs`, `sudo`, `doas`, `setsid`, `stdbuf`, `ionice`, `time` run another
 * command; `sh -c`, `bash -c` (and dash/zsh/ksh), `eval`, `alias`, `trap`, `env -S`, `sudo -s`
 * and a shell fed a quoted here-document run a command *string*; `find -exec` runs a command
 * per file. The policy judges every layer: wrappers against the deny and confirm rules (so a rule
 * on `sudo` still fires), the command actually run against the whole chain, and command strings
 * as scripts of their own.
 */

/** A command as it will be run: `words[0]` is its name. */
export interface CommandView {
  words: ShellWord[];
  /** More arguments arrive only at run time (`xargs`, `find -exec … {} +`). */
  openArgs: boolean;
  /** Role: a `wrapper` is judged against deny/confirm rules only; a `command` against the whole chain. */
  role: 'wrapper' | 'command';
}

export interface Unwrapped {
  views: CommandView[];
  /** Command strings to judge as scripts of their own, with the wrapper that runs them. */
  scripts: { text: string; via: string }[];
  /** Set when what runs cannot be known before run time (a dynamic script, a shell reading a pipe). */
  unjudgeable: string | null;
  /** Environment assignments made by wrappers (`env A=1`, `sudo A=1`). */
  assigns: { name: string; value: ShellWord | null }[];
  /** Wrapper names looked through, outer first. */
  via: string[];
}

interface WrapperSpec {
  /** Short options that take a value (attached or as the next word). */
  shortWithValue?: string;
  /** Long options that take a value as the next word when not given as `--opt=value`. */
  longWithValue?: readonly string[];
  /** `NAME=VALUE` words may follow the options. */
  assignments?: boolean;
  /** Positional words before the command (`timeout DURATION`). */
  leadingPositionals?: number;
  /** `-10` is an option (`nice`). */
  numericOptions?: boolean;
  /** Short options that mean no command is run (`command -v`, `ionice -p`). */
  noCommandFlags?: string;
  /** Short options whose presence turns the rest into a shell command string (`sudo -s`). */
  shellFlags?: string;
  /** The command's arguments are extended at run time. */
  openArgs?: boolean;
  /** Command run when none is given (`xargs` → `echo`). */
  defaultCommand?: string;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { shortWithValue: 'uCS', longWithValue: ['unset', 'chdir', 'split-string'], assignments: true },
  command: { noCommandFlags: 'vV' },
  builtin: {},
  exec: { shortWithValue: 'a' },
  nice: { shortWithValue: 'n', longWithValue: ['adjustment'], numericOptions: true },
  nohup: {},
  timeout: { shortWithValue: 'sk', longWithValue: ['signal', 'kill-after'], leadingPositionals: 1 },
  xargs: {
    shortWithValue: 'adEILnPs',
    longWithValue: ['arg-file', 'delimiter', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    openArgs: true,
    defaultCommand: 'echo',
  },
  sudo: {
    shortWithValue: 'ugCDhprtTU',
    longWithValue: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user'],
    assignments: true,
    noCommandFlags: 'lvkK',
    shellFlags: 'si',
  },
  doas: { shortWithValue: 'uC', shellFlags: 's' },
  setsid: {},
  stdbuf: { shortWithValue: 'ioe', longWithValue: ['input', 'output', 'error'] },
  ionice: { shortWithValue: 'cnPpu', noCommandFlags: 'pPu' },
  time: { shortWithValue: 'fo', longWithValue: ['format', 'output'] },
};

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox-sh']);
const SHELL_OPTS_WITH_VALUE = 'oO';
const SHELL_LONG_WITH_VALUE = ['rcfile', 'init-file'];
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const MAX_WRAPPERS = 16;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The name a command runs as: the last path component (`/usr/bin/sudo` → `sudo`). */
export function commandName(word: ShellWord): string {
  const t = word.text;
  const slash = t.lastIndexOf('/');
  return slash >= 0 ? t.slice(slash + 1) : t;
}

/** Unwraps a simple command (see the file comment). */
export function unwrap(cmd: SimpleCommand): Unwrapped {
  const out: Unwrapped = { views: [], scripts: [], unjudgeable: null, assigns: [], via: [] };
  let words = cmd.words;
  let openArgs = false;
  for (let depth = 0; words.length > 0; depth++) {
    const head = words[0]!;
    const name = head.dynamic ? '' : commandName(head);
    if (depth >= MAX_WRAPPERS) {
      out.unjudgeable = 'too many nested wrapper commands';
      out.views.push({ words, openArgs, role: 'command' });
      return out;
    }
    if (SHELLS.has(name)) {
      shellLayer(words, cmd, openArgs, out);
      return out;
    }
    if (name === 'eval' || name === 'alias' || name === 'trap') {
      scriptBuiltin(name, words, out);
      out.views.push({ words, openArgs, role: 'command' });
      return out;
    }
    if (name === 'find') findExec(words, out);
    const spec = WRAPPERS[name];
    if (!spec) {
      out.views.push({ words, openArgs, role: 'command' });
      return out;
    }
    const inner = innerCommand(words, spec, out);
    if (inner === 'unjudgeable') {
      out.views.push({ words, openArgs, role: 'command' });
      return out;
    }
    if (inner === 'none') {
      out.views.push({ words, openArgs, role: 'command' });
      return out;
    }
    if (inner.script !== undefined) {
      out.views.push({ words, openArgs, role: 'wrapper' });
      out.via.push(name);
      out.scripts.push({ text: inner.script, via: name });
      return out;
    }
    out.views.push({ words, openArgs, role: 'wrapper' });
    out.via.push(name);
    openArgs = openArgs || spec.openArgs === true;
    words = inner.words.length > 0 ? inner.words : spec.defaultCommand ? [literalWord(spec.defaultCommand)] : [];
  }
  return out;
}

type Inner = { words: ShellWord[]; script?: string } | 'none' | 'unjudgeable';

function innerCommand(words: ShellWord[], spec: WrapperSpec, out: Unwrapped): Inner {
  const shortWithValue = spec.shortWithValue ?? '';
  const longWithValue = spec.longWithValue ?? [];
  let positionals = spec.leadingPositionals ?? 0;
  let shellMode = false;
  let splitString: string | null = null;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) {
      out.unjudgeable = `the options of ${commandName(words[0]!)} are only known at run time (${w.source})`;
      return 'unjudgeable';
    }
    const t = w.text;
    if (t === '--') {
      i++;
      break;
    }
    if (t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      const long = eq >= 0 ? t.slice(2, eq) : t.slice(2);
      if (long === 'split-string') splitString = eq >= 0 ? t.slice(eq + 1) : (words[i + 1]?.text ?? '');
      if (eq < 0 && longWithValue.includes(long)) i++;
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      if (spec.numericOptions && /^-\d+$/.test(t)) continue;
      for (let j = 1; j < t.length; j++) {
        const letter = t[j]!;
        if (spec.noCommandFlags?.includes(letter)) return 'none';
        if (spec.shellFlags?.includes(letter)) shellMode = true;
        if (shortWithValue.includes(letter)) {
          const value = j + 1 < t.length ? t.slice(j + 1) : (words[++i]?.text ?? '');
          if (letter === 'S' && commandName(words[0]!) === 'env') splitString = value;
          break;
        }
      }
      continue;
    }
    if (spec.assignments && ASSIGNMENT.test(t)) {
      const eq = t.indexOf('=');
      out.assigns.push({ name: t.slice(0, eq), value: { ...w, text: t.slice(eq + 1) } });
      continue;
    }
    if (positionals > 0) {
      positionals--;
      continue;
    }
    break;
  }
  const rest = words.slice(i);
  if (splitString !== null) return { words: [], script: [splitString, ...rest.map((w) => w.text)].join(' ') };
  if (shellMode && rest.length > 0) {
    if (rest.some((w) => w.dynamic)) {
      out.unjudgeable = `the command given to ${commandName(words[0]!)} is only known at run time`;
      return 'unjudgeable';
    }
    return { words: [], script: rest.map((w) => w.text).join(' ') };
  }
  return { words: rest };
}

/** `sh -c STRING`, `bash script.sh`, `bash <<'EOF'`, `… | sh`. */
function shellLayer(words: ShellWord[], cmd: SimpleCommand, openArgs: boolean, out: Unwrapped): void {
  const name = commandName(words[0]!);
  let dashC = false;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) {
      out.unjudgeable = `the arguments of ${name} are only known at run time (${w.source})`;
      out.views.push({ words, openArgs, role: 'command' });
      return;
    }
    const t = w.text;
    if (t === '--' || t === '-') {
      i++;
      break;
    }
    if (t.startsWith('--')) {
      if (SHELL_LONG_WITH_VALUE.includes(t.slice(2))) i++;
      continue;
    }
    if ((t.startsWith('-') || t.startsWith('+')) && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        if (t[j] === 'c') dashC = true;
        else if (SHELL_OPTS_WITH_VALUE.includes(t[j]!)) {
          if (j + 1 === t.length) i++;
          break;
        }
      }
      continue;
    }
    break;
  }
  const rest = words.slice(i);
  if (dashC) {
    out.views.push({ words, openArgs, role: 'wrapper' });
    out.via.push(`${name} -c`);
    const script = rest[0];
    if (!script) return;
    if (script.dynamic) out.unjudgeable = `the command string given to ${name} -c is only known at run time (${script.source})`;
    else out.scripts.push({ text: script.text, via: `${name} -c` });
    return;
  }
  if (rest.length > 0) {
    // `bash script.sh args`: runs a file the policy cannot see; judged as the shell command itself.
    out.views.push({ words, openArgs, role: 'command' });
    return;
  }
  const heredoc = cmd.redirects.find((r) => r.heredoc !== undefined);
  const herestring = cmd.redirects.find((r) => r.op === '<<<');
  const fromFile = cmd.redirects.find((r) => r.op === '<');
  if (heredoc?.heredoc !== undefined) {
    out.views.push({ words, openArgs, role: 'wrapper' });
    out.via.push(`${name} <<`);
    out.scripts.push({ text: heredoc.heredoc, via: `${name} <<` });
  } else if (herestring?.target && !herestring.target.dynamic) {
    out.views.push({ words, openArgs, role: 'wrapper' });
    out.via.push(`${name} <<<`);
    out.scripts.push({ text: herestring.target.text, via: `${name} <<<` });
  } else if (cmd.pipedInput || fromFile || herestring || openArgs) {
    out.views.push({ words, openArgs, role: 'command' });
    out.unjudgeable = `${name} reads the commands it runs from its input, which is only known at run time`;
  } else {
    // An interactive nested shell in the terminal.
    out.views.push({ words, openArgs, role: 'command' });
  }
}

/** `eval ARGS…`, `alias NAME=VALUE…`, `trap ACTION SIGNALS…`: their strings are scripts. */
function scriptBuiltin(name: string, words: ShellWord[], out: Unwrapped): void {
  const args = words.slice(1);
  if (name === 'eval') {
    if (args.length === 0) return;
    if (args.some((w) => w.dynamic)) out.unjudgeable = 'eval runs a string that is only known at run time';
    else out.scripts.push({ text: args.map((w) => w.text).join(' '), via: 'eval' });
    return;
  }
  if (name === 'alias') {
    for (const a of args) {
      const eq = a.text.indexOf('=');
      if (eq <= 0) continue;
      if (a.dynamic) out.unjudgeable = 'an alias whose value is only known at run time';
      else out.scripts.push({ text: a.text.slice(eq + 1), via: 'alias' });
    }
    return;
  }
  // trap [-lp] [[ACTION] SIGNAL…]
  let k = 0;
  while (k < args.length && /^-[lp]*$/.test(args[k]!.text) && args[k]!.text !== '-') k++;
  if (k < args.length && args[k]!.text === '--') k++;
  const action = args[k];
  if (!action || action.text === '-' || args.length - k < 2) return;
  if (action.dynamic) out.unjudgeable = 'a trap whose action is only known at run time';
  else if (action.text !== '') out.scripts.push({ text: action.text, via: 'trap' });
}

/** `find … -exec CMD … {} \;` — each `-exec`/`-execdir`/`-ok`/`-okdir` command is judged too. */
function findExec(words: ShellWord[], out: Unwrapped): void {
  for (let i = 1; i < words.length; i++) {
    if (!FIND_EXEC.has(words[i]!.text)) continue;
    const inner: ShellWord[] = [];
    let j = i + 1;
    for (; j < words.length && words[j]!.text !== ';' && words[j]!.text !== '+'; j++) {
      const w = words[j]!;
      inner.push(w.text.includes('{}') ? { ...w, dynamic: true } : w);
    }
    if (inner.length > 0) {
      const nested = unwrap({ text: '', words: inner, assigns: [], redirects: [], pipedInput: false });
      for (const v of nested.views) out.views.push({ ...v, openArgs: v.openArgs || words[j]?.text === '+' });
      out.scripts.push(...nested.scripts);
      out.assigns.push(...nested.assigns);
      if (nested.unjudgeable) out.unjudgeable = nested.unjudgeable;
    }
    i = j;
  }
}
