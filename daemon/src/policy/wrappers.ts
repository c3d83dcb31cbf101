import { posix } from 'node:path';
import { longNamed } from './options.js';
import { literalWord, type ShellWord } from './shell-syntax.js';
import type { Assignment, SimpleCommand } from './script-scan.js';

/**
 * Looking through wrapper commands (issue 5): `env`, `command`, `builtin`, `exec`, `nice`,
 * `nohup`, `timeout`, `xargs`, `sudo`, `doas`, `pkexec`, `runuser -u`, `setsid`, `stdbuf`,
 * `ionice`, `time`, `chroot DIR`, `unshare`, `nsenter`, `setpriv`, `chrt PRIO`, `taskset MASK`,
 * `systemd-run`, `flock FILE`, `setarch ARCH`, `strace`, `busybox`, `fakeroot`, `eatmydata`,
 * `dbus-run-session`, `python -m MODULE`, and the project runners `poetry run`, `pipenv run`,
 * `pdm run`, `uv run`, `bundle exec`, `conda run`, `mise exec`, `direnv exec DIR`, `npx` run
 * another command; `sh -c`, `bash -c` (and dash/zsh/ksh), `su -c`, `runuser -c`, `script -c`,
 * `flock -c`, `sg GROUP`, `watch`, `npx -c`, `nix-shell --run`, `eval`, `alias`, `trap`,
 * `mapfile -C`, `complete -C`, `env -S`, `sudo -s` and a shell fed a quoted here-document run a
 * command *string*; `find -exec` runs a command per file. The policy judges every layer: wrappers
 * against the deny and confirm rules (so a rule on `sudo` still fires), the command actually run
 * against the whole chain, and command strings as scripts of their own.
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
  /** Environment assignments made by wrappers (`env A=1`, `sudo A=1`, `systemd-run -E A=1`). */
  assigns: Assignment[];
  /** Wrapper names looked through, outer first. */
  via: string[];
  /** Folders a wrapper makes the command run in (`env -C DIR`, `sudo -D DIR`), outer first. */
  chdirs: ShellWord[];
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
  /** Short options whose value is a shell command string (`su -c`, `script -c`). */
  scriptShort?: string;
  /** Long options whose value is a shell command string (`--command`). */
  scriptLong?: readonly string[];
  /** Short / long options whose value is a `NAME=value` environment assignment (`systemd-run -E`). */
  envShort?: string;
  envLong?: readonly string[];
  /** Its other arguments are not a command (`su USER ARGS`): a wrapper only through a script option. */
  noInner?: boolean;
  /** With this short option the arguments after the options are a command after all (`runuser -u`). */
  innerFlag?: string;
  /** The arguments after the options are joined into one shell command string (`watch`). */
  joinScript?: boolean;
  /** Short / long options that turn `joinScript` off: the arguments are the command (`watch -x`). */
  execShort?: string;
  execLong?: readonly string[];
  /** A wrapper only with one of these subcommands first (`poetry run`, `bundle exec`). */
  subcommands?: readonly string[];
  /** Short / long options whose value is the folder the command runs in (`env -C`, `sudo --chdir`). */
  chdirShort?: string;
  chdirLong?: readonly string[];
  /** The folder the command runs in when no option says otherwise (`chroot` → `/`; `systemd-run`: {@link systemdRunDirectory}). */
  implicitChdir?: string;
  /** Short / long options that start a login shell, in the target user's home folder (`su -l`, `sudo -i`). */
  loginShort?: string;
  loginLong?: readonly string[];
  /** Long options that, like {@link shellFlags}, run the command through a shell (`sudo --shell`). */
  shellLong?: readonly string[];
}

const SU = {
  shortWithValue: 'cgGsw',
  longWithValue: ['command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment'],
  scriptShort: 'c',
  scriptLong: ['command', 'session-command'],
  loginShort: 'l',
  loginLong: ['login'],
} as const;

const LONGS_OF = new Map<string, readonly string[]>();

/** Every long option a wrapper's spec names (for abbreviations: `su --comm` is `--command`). */
function wrapperLongs(name: string, spec: WrapperSpec): readonly string[] {
  let known = LONGS_OF.get(name);
  if (!known) {
    known = [...new Set([...(spec.scriptLong ?? []), ...(spec.envLong ?? []), ...(spec.chdirLong ?? []), ...(spec.loginLong ?? []), ...(spec.execLong ?? []), ...(spec.shellLong ?? []), ...(spec.longWithValue ?? [])])];
    LONGS_OF.set(name, known);
  }
  return known;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { shortWithValue: 'uCS', longWithValue: ['unset', 'chdir', 'split-string'], assignments: true, chdirShort: 'C', chdirLong: ['chdir'] },
  command: { noCommandFlags: 'vV' },
  builtin: {},
  exec: { shortWithValue: 'a' },
  nice: { shortWithValue: 'n', longWithValue: ['adjustment'], numericOptions: true },
  nohup: {},
  timeout: { shortWithValue: 'sk', longWithValue: ['signal', 'kill-after'], leadingPositionals: 1 },
  xargs: {
    shortWithValue: 'adEILnPs',
    // `--replace[=R]`, `--eof[=E]`, `--max-lines[=N]`: optional values, only ever after `=`.
    longWithValue: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    openArgs: true,
    defaultCommand: 'echo',
  },
  sudo: {
    shortWithValue: 'ugCDhprtTU',
    longWithValue: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user'],
    assignments: true,
    noCommandFlags: 'lvkK',
    shellFlags: 'si',
    shellLong: ['shell'],
    chdirShort: 'D',
    chdirLong: ['chdir'],
    loginShort: 'i',
    loginLong: ['login'],
  },
  doas: { shortWithValue: 'uC', shellFlags: 's' },
  setsid: {},
  stdbuf: { shortWithValue: 'ioe', longWithValue: ['input', 'output', 'error'] },
  ionice: { shortWithValue: 'cnPpu', noCommandFlags: 'pPu' },
  time: { shortWithValue: 'fo', longWithValue: ['format', 'output'] },
  pkexec: { longWithValue: ['user'] },
  su: { ...SU, noInner: true },
  runuser: { ...SU, shortWithValue: 'cgGswu', longWithValue: [...SU.longWithValue, 'user'], noInner: true, innerFlag: 'u' },
  chroot: { longWithValue: ['userspec', 'groups'], leadingPositionals: 1, implicitChdir: '/' },
  unshare: {
    shortWithValue: 'SGRw',
    longWithValue: ['propagation', 'setgroups', 'map-user', 'map-group', 'map-users', 'map-groups', 'setuid', 'setgid', 'root', 'wd', 'monotonic', 'boottime', 'load-interp'],
    chdirLong: ['wd'],
  },
  nsenter: { shortWithValue: 'tSGw', longWithValue: ['target', 'setuid', 'setgid', 'env', 'wd'], chdirShort: 'w', chdirLong: ['wd'] },
  setpriv: {
    longWithValue: ['reuid', 'regid', 'ruid', 'euid', 'rgid', 'egid', 'groups', 'inh-caps', 'ambient-caps', 'bounding-set', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule', 'seccomp-filter'],
    noCommandFlags: 'd',
  },
  chrt: { shortWithValue: 'TPD', longWithValue: ['sched-runtime', 'sched-period', 'sched-deadline'], noCommandFlags: 'pm', leadingPositionals: 1 },
  taskset: { noCommandFlags: 'p', leadingPositionals: 1 },
  'systemd-run': {
    shortWithValue: 'upEHM',
    longWithValue: ['unit', 'property', 'setenv', 'host', 'machine', 'description', 'slice', 'uid', 'gid', 'nice', 'working-directory', 'on-active', 'on-boot', 'on-startup', 'on-unit-active', 'on-unit-inactive', 'on-calendar', 'path-property', 'socket-property', 'timer-property', 'service-type'],
    envShort: 'E',
    envLong: ['setenv'],
    chdirLong: ['working-directory'],
  },
  flock: { shortWithValue: 'wEc', longWithValue: ['timeout', 'wait', 'conflict-exit-code', 'command'], scriptShort: 'c', scriptLong: ['command'], leadingPositionals: 1 },
  script: {
    shortWithValue: 'cEIOBTmo',
    longWithValue: ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format', 'output-limit'],
    scriptShort: 'c',
    scriptLong: ['command'],
    noInner: true,
  },
  watch: { shortWithValue: 'n', longWithValue: ['interval'], joinScript: true, execShort: 'x', execLong: ['exec'] },
  setarch: { leadingPositionals: 1 },
  strace: { shortWithValue: 'abeEIoOpPsSuUX', longWithValue: ['output', 'attach', 'user', 'env', 'trace', 'signal', 'status'] },
  busybox: {},
  fakeroot: { shortWithValue: 'is', longWithValue: ['lib', 'faked'] },
  eatmydata: {},
  'dbus-run-session': { longWithValue: ['config-file', 'dbus-daemon'] },
  npx: { shortWithValue: 'cp', longWithValue: ['call', 'package'], scriptShort: 'c', scriptLong: ['call'] },
  'nix-shell': { shortWithValue: 'pAIE', longWithValue: ['run', 'command', 'packages', 'attr', 'include', 'arg', 'argstr', 'expr'], scriptLong: ['run', 'command'], noInner: true },
  poetry: { subcommands: ['run'], shortWithValue: 'CP', longWithValue: ['directory', 'project'] },
  pipenv: { subcommands: ['run'] },
  pdm: { subcommands: ['run'], shortWithValue: 'pg', longWithValue: ['project'] },
  uv: {
    subcommands: ['run'],
    shortWithValue: 'p',
    longWithValue: ['with', 'with-editable', 'with-requirements', 'python', 'package', 'extra', 'group', 'only-group', 'no-group', 'env-file', 'directory', 'project', 'index', 'default-index', 'index-url', 'extra-index-url', 'find-links', 'config-file', 'cache-dir'],
  },
  bundle: { subcommands: ['exec'] },
  conda: { subcommands: ['run'], shortWithValue: 'np', longWithValue: ['name', 'prefix', 'cwd'] },
  mamba: { subcommands: ['run'], shortWithValue: 'np', longWithValue: ['name', 'prefix', 'cwd'] },
  micromamba: { subcommands: ['run'], shortWithValue: 'np', longWithValue: ['name', 'prefix', 'cwd'] },
  mise: { subcommands: ['exec', 'x'] },
  direnv: { subcommands: ['exec'], leadingPositionals: 1 },
  npm: { subcommands: ['exec', 'x'], shortWithValue: 'cwC', longWithValue: ['package', 'call', 'workspace', 'prefix'], scriptShort: 'c', scriptLong: ['call'] },
  corepack: {},
  pnpm: { subcommands: ['exec', 'dlx'], shortWithValue: 'C', longWithValue: ['dir', 'filter', 'package', 'workspace-concurrency'], shellFlags: 'c', chdirShort: 'C', chdirLong: ['dir'] },
  yarn: { subcommands: ['dlx', 'exec'], shortWithValue: 'p', longWithValue: ['package', 'cwd'], chdirLong: ['cwd'] },
  bunx: { shortWithValue: 'p', longWithValue: ['package'] },
  bun: { subcommands: ['x'], longWithValue: ['cwd'], chdirLong: ['cwd'] },
  valgrind: {},
  ltrace: { shortWithValue: 'aAeEFlnopsuwxX', longWithValue: ['output', 'library', 'align', 'indent'] },
  unbuffer: {},
  firejail: {},
  tmux: {
    subcommands: ['new-session', 'new', 'new-window', 'neww', 'split-window', 'splitw', 'respawn-pane', 'respawnp', 'respawn-window', 'respawnw', 'run-shell', 'run'],
    shortWithValue: 'LSfcenstxylFpT',
    joinScript: true,
    chdirShort: 'c',
  },
  screen: { shortWithValue: 'SceEhpstT', noCommandFlags: 'rRxlQX' },
};

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox-sh']);
const SHELL_OPTS_WITH_VALUE = 'oO';
const SHELL_LONG_WITH_VALUE = ['rcfile', 'init-file'];
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

const MAX_WRAPPERS = 16;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const PYTHON = /^python[0-9.]*$/;

/** The name a command runs as: the last path component (`/usr/bin/sudo` → `sudo`). */
export function commandName(word: ShellWord): string {
  const t = word.text;
  const slash = t.lastIndexOf('/');
  return slash >= 0 ? t.slice(slash + 1) : t;
}

/** Unwraps a simple command (see the file comment). */
export function unwrap(cmd: SimpleCommand): Unwrapped {
  const out: Unwrapped = { views: [], scripts: [], unjudgeable: null, assigns: [], via: [], chdirs: [] };
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
    if (SHELLS.has(name) || ((name === 'source' || name === '.') && words[1] !== undefined && descriptorPath(words[1]) !== null)) {
      shellLayer(words, cmd, openArgs, out);
      return out;
    }
    if (name === 'eval' || name === 'alias' || name === 'trap' || name === 'mapfile' || name === 'readarray' || name === 'complete') {
      scriptBuiltin(name, words, out);
      out.views.push({ words, openArgs, role: 'command' });
      return out;
    }
    if (name === 'find') findExec(words, out);
    if (name === 'at' || name === 'batch') {
      atJob(name, words, cmd, openArgs, out);
      return out;
    }
    if (name === 'sg' || PYTHON.test(name)) {
      const inner = name === 'sg' ? sgCommand(words, out) : pythonModule(words);
      if (inner === null || inner === 'unjudgeable') {
        out.views.push({ words, openArgs, role: 'command' });
        return out;
      }
      out.views.push({ words, openArgs, role: 'wrapper' });
      out.via.push(name);
      if (typeof inner === 'string') {
        out.scripts.push({ text: inner, via: name });
        return out;
      }
      words = inner;
      continue;
    }
    const spec = Object.prototype.hasOwnProperty.call(WRAPPERS, name) ? WRAPPERS[name] : undefined;
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
    if (inner.stdinShell) {
      // Review round 6: `sudo -s <<< '…'`, `su <<EOF`: the shell's commands come from its input.
      const fed = inputText(cmd, 0);
      if (fed !== null && fed !== 'unknown') {
        out.views.push({ words, openArgs, role: 'wrapper' });
        out.via.push(`${name} <<`);
        out.scripts.push({ text: fed.text, via: `${name} <<` });
      } else {
        out.views.push({ words, openArgs, role: 'command' });
        if (fed === 'unknown' || cmd.pipedInput || openArgs) out.unjudgeable = `the shell ${name} starts reads the commands it runs from its input, which is only known at run time`;
      }
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
    const replace = name === 'xargs' ? xargsReplaceString(words) : null;
    words = inner.words.length > 0 ? inner.words : spec.defaultCommand ? [literalWord(spec.defaultCommand)] : [];
    // `xargs -I{} CMD {}`: each word holding the replace string is an input line at run time.
    if (replace !== null) words = words.map((w, k) => (k > 0 && w.text.includes(replace) ? { ...w, dynamic: true } : w));
  }
  return out;
}

/** `stdinShell`: the wrapper starts a shell with no command (`sudo -s`, `su`, `pkexec`), which reads its commands from standard input. */
type Inner = { words: ShellWord[]; script?: string; stdinShell?: boolean } | 'none' | 'unjudgeable';

function innerCommand(words: ShellWord[], spec: WrapperSpec, out: Unwrapped): Inner {
  const name = commandName(words[0]!);
  const shortWithValue = spec.shortWithValue ?? '';
  const longWithValue = spec.longWithValue ?? [];
  let positionals = spec.subcommands ? 0 : (spec.leadingPositionals ?? 0);
  let subNeeded = spec.subcommands !== undefined;
  let noInner = spec.noInner === true;
  let joinScript = spec.joinScript === true;
  let shellMode = false;
  let splitString: string | null = null;
  let script: ShellWord | null = null;
  let i = 1;
  let endOfOptions = false;
  const chdirsBefore = out.chdirs.length;
  let login = false;
  const takeValue = (w: ShellWord, kind: 'script' | 'env' | 'split' | 'chdir'): void => {
    if (kind === 'chdir') out.chdirs.push(w);
    else if (kind === 'split') splitString = w.text;
    else if (kind === 'script') script = w;
    else if (ASSIGNMENT.test(w.text)) {
      const eq = w.text.indexOf('=');
      out.assigns.push({ name: w.text.slice(0, eq), value: { ...w, text: w.text.slice(eq + 1) } });
    }
  };
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) {
      out.unjudgeable = `the options of ${name} are only known at run time (${w.source})`;
      return 'unjudgeable';
    }
    const t = w.text;
    if (t === '--') {
      i++;
      endOfOptions = true;
      break;
    }
    if (t === '-' && (name === 'su' || name === 'runuser')) {
      login = true; // `su - USER`
      continue;
    }
    if (t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      // An abbreviation is the option it abbreviates (`su --comm`, `env --split-s`).
      const long = longNamed(t, wrapperLongs(name, spec)) ?? (eq >= 0 ? t.slice(2, eq) : t.slice(2));
      if (spec.loginLong?.includes(long)) login = true;
      if (spec.shellLong?.includes(long) || spec.loginLong?.includes(long)) shellMode = shellMode || spec.shellFlags !== undefined;
      const kind = long === 'split-string' && name === 'env' ? 'split' : spec.scriptLong?.includes(long) ? 'script' : spec.envLong?.includes(long) ? 'env' : spec.chdirLong?.includes(long) ? 'chdir' : null;
      if (spec.execLong?.includes(long)) joinScript = false;
      if (eq < 0 && longWithValue.includes(long)) {
        i++;
        if (kind && words[i]) takeValue(words[i]!, kind);
      } else if (kind && eq >= 0) takeValue({ ...w, text: t.slice(eq + 1) }, kind);
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      if (spec.numericOptions && /^-\d+$/.test(t)) continue;
      for (let j = 1; j < t.length; j++) {
        const letter = t[j]!;
        if (spec.loginShort?.includes(letter)) login = true;
        if (spec.noCommandFlags?.includes(letter)) return 'none';
        if (spec.shellFlags?.includes(letter)) shellMode = true;
        if (spec.innerFlag?.includes(letter)) noInner = false;
        if (spec.execShort?.includes(letter)) joinScript = false;
        if (shortWithValue.includes(letter)) {
          const attached = j + 1 < t.length;
          const valueWord = attached ? { ...w, text: t.slice(j + 1) } : words[++i];
          const kind = letter === 'S' && name === 'env' ? 'split' : spec.scriptShort?.includes(letter) ? 'script' : spec.envShort?.includes(letter) ? 'env' : spec.chdirShort?.includes(letter) ? 'chdir' : null;
          if (kind && valueWord) {
            if (valueWord.dynamic && kind !== 'chdir') {
              out.unjudgeable = `the command given to ${name} -${letter} is only known at run time`;
              return 'unjudgeable';
            }
            takeValue(valueWord, kind);
          }
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
    if (subNeeded) {
      if (!spec.subcommands!.includes(t)) return 'none';
      subNeeded = false;
      positionals = spec.leadingPositionals ?? 0;
      continue;
    }
    if (positionals > 0) {
      positionals--;
      continue;
    }
    if (noInner) continue; // `su USER ARGS…`: options may follow
    break;
  }
  if (endOfOptions) {
    // `timeout -- 5 CMD`, `npm exec -- CMD`: the positionals and subcommand still come first.
    if (subNeeded) {
      if (!spec.subcommands!.includes(words[i]?.text ?? '')) return 'none';
      subNeeded = false;
      i++;
      positionals = spec.leadingPositionals ?? 0;
    }
    i += positionals;
  }
  if (subNeeded) return 'none';
  if (out.chdirs.length === chdirsBefore) {
    // No option said where: a login shell starts in the target user's home (only known at run
    // time); chroot and system units start in `/`.
    const where = login ? { text: '~', dynamic: true, glob: false, source: `${name} login shell` } : name === 'systemd-run' ? systemdRunDirectory(words) : spec.implicitChdir ? literalWord(spec.implicitChdir) : null;
    if (where) out.chdirs.push(where);
  }
  const rest = noInner ? [] : words.slice(i);
  if (splitString !== null) return { words: [], script: [splitString, ...rest.map((w) => w.text)].join(' ') };
  if (script !== null) return { words: [], script: (script as ShellWord).text };
  if (noInner) return name === 'su' || name === 'runuser' ? { words: [], stdinShell: true } : 'none';
  if (rest.length === 0 && (shellMode || (login && name === 'sudo') || name === 'pkexec')) return { words: [], stdinShell: true };
  if ((shellMode || joinScript) && rest.length > 0) {
    if (rest.some((w) => w.dynamic)) {
      out.unjudgeable = `the command given to ${name} is only known at run time`;
      return 'unjudgeable';
    }
    return { words: [], script: rest.map((w) => w.text).join(' ') };
  }
  return { words: rest };
}

/**
 * `at TIME`, `batch`: the commands of the job come from standard input (or `-f FILE`) and run
 * later. A quoted here-document or a here-string is judged as their script; any other input
 * cannot be judged. Listing and removing jobs (`-l`, `-r`, `-d`, `-c`) run nothing.
 */
function atJob(name: string, words: ShellWord[], cmd: SimpleCommand, openArgs: boolean, out: Unwrapped): void {
  out.views.push({ words, openArgs, role: 'command' });
  if (words.slice(1).some((w) => /^-[A-Za-z]*[lrdc]/.test(w.text))) return;
  const fed = inputText(cmd, 0);
  if (fed !== null && fed !== 'unknown' && !words.some((w) => /^-[A-Za-z]*f/.test(w.text))) {
    out.views[out.views.length - 1]!.role = 'wrapper';
    out.via.push(name);
    out.scripts.push({ text: fed.text, via: name });
    return;
  }
  out.unjudgeable = `${name} runs commands read from its input or a file later, which are only known at run time`;
}

/**
 * Where `systemd-run` runs its command when `--working-directory` is not given: the folder of
 * `-p WorkingDirectory=DIR`; the caller's with `-d`/`--same-dir` (null: no change); a home folder
 * known only at run time for a `--user` unit; else `/` (a system unit).
 */
function systemdRunDirectory(words: ShellWord[]): ShellWord | null {
  const spec = WRAPPERS['systemd-run']!;
  let user = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const t = w.text;
    if (t === '--' || !t.startsWith('-')) break;
    if (t === '-d' || t === '--same-dir') return null;
    if (t === '--user') user = true;
    const property = t === '-p' || t === '--property' ? words[i + 1]?.text : t.startsWith('--property=') ? t.slice(11) : t.startsWith('-p') ? t.slice(2) : undefined;
    if (property !== undefined && /^WorkingDirectory=/.test(property)) return { ...w, text: property.slice('WorkingDirectory='.length).replace(/^-/, '') };
    // Skip an option's value given as the next word (`-p MemoryMax=1G`, `--unit NAME`).
    if ((t.length === 2 && spec.shortWithValue?.includes(t[1]!)) || (t.startsWith('--') && !t.includes('=') && spec.longWithValue?.includes(t.slice(2)))) i++;
  }
  return user ? { text: '~', dynamic: true, glob: false, source: 'systemd-run --user' } : literalWord('/');
}

/** The replace string of `xargs -I R`, `-IR`, `-i[R]`, `--replace[=R]` (default `{}`), or null. */
function xargsReplaceString(words: ShellWord[]): string | null {
  for (let i = 1; i < words.length; i++) {
    const t = words[i]!.text;
    if (t === '--' || !t.startsWith('-')) return null;
    if (t === '-I') return words[i + 1]?.text ?? null;
    if (t.startsWith('-I')) return t.slice(2);
    if (t === '-i') return '{}';
    if (t.startsWith('-i')) return t.slice(2);
    if (longNamed(t, ['replace'])) return t.includes('=') ? t.slice(t.indexOf('=') + 1) : '{}';
  }
  return null;
}

/** `sg [-] GROUP [-c] COMMAND…`: the command is a string run by `/bin/sh -c`; null without one. */
function sgCommand(words: ShellWord[], out: Unwrapped): string | null | 'unjudgeable' {
  let i = 1;
  if (words[i]?.text === '-') i++;
  i++; // the group
  if (words[i]?.text === '-c') i++;
  const rest = words.slice(i);
  if (rest.length === 0) return null;
  if (rest.some((w) => w.dynamic)) {
    out.unjudgeable = 'the command given to sg is only known at run time';
    return 'unjudgeable';
  }
  return rest.map((w) => w.text).join(' ');
}

/** `python -m MODULE ARGS…` runs MODULE (`python3 -m pip install x` is `pip install x`); null otherwise. */
function pythonModule(words: ShellWord[]): ShellWord[] | null {
  for (let i = 1; i < words.length; i++) {
    const t = words[i]!.text;
    if (words[i]!.dynamic || !t.startsWith('-') || t === '-' || t === '--') return null;
    for (let j = 1; j < t.length; j++) {
      const l = t[j]!;
      if (l === 'c' || l === '-') return null;
      if (l === 'm') {
        const attached = t.slice(j + 1);
        if (attached !== '') return [{ ...words[i]!, text: attached, source: attached }, ...words.slice(i + 1)];
        return words.length > i + 1 ? words.slice(i + 1) : null;
      }
      if (l === 'W' || l === 'X') {
        if (j + 1 === t.length) i++;
        break;
      }
    }
  }
  return null;
}

/** `sh -c STRING`, `bash script.sh`, `bash <<'EOF'`, `… | sh`. */
function shellLayer(words: ShellWord[], cmd: SimpleCommand, openArgs: boolean, out: Unwrapped): void {
  const name = commandName(words[0]!);
  let dashC = false;
  let dashS = false;
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
        else if (t[j] === 's' && t[0] === '-') dashS = true;
        else if (SHELL_OPTS_WITH_VALUE.includes(t[j]!)) {
          if (j + 1 === t.length) i++;
          break;
        }
      }
      continue;
    }
    break;
  }
  let rest = words.slice(i);
  // `bash /dev/stdin <<< '…'`, `bash /dev/fd/3 3<<< '…'`, `source /dev/stdin`: the script file is
  // one of the shell's own descriptors; `bash -s ARGS`: the arguments are positionals, the script
  // is standard input.
  let fd = 0;
  const scriptFd = !dashC && rest.length > 0 ? descriptorPath(rest[0]!) : null;
  if (scriptFd !== null) {
    fd = scriptFd;
    rest = [];
  } else if (dashS && !dashC) rest = [];
  if (dashC) {
    out.views.push({ words, openArgs, role: 'wrapper' });
    out.via.push(`${name} -c`);
    const script = rest[0];
    if (!script) return;
    if (script.dynamic) out.unjudgeable = `the command string given to ${name} -c is only known at run time (${script.source})`;
    else out.scripts.push({ text: script.text, via: `${name} -c` });
    // Text fed to its input may be read as commands by what the string runs (`bash -c 'source
    // /dev/stdin' <<< '…'`): judged as a script too.
    const fed = inputText(cmd, 0);
    if (fed !== null && fed !== 'unknown') out.scripts.push({ text: fed.text, via: `${name} -c <<<` });
    return;
  }
  if (rest.length > 0) {
    // `bash script.sh args`: runs a file the policy cannot see; judged as the shell command itself.
    out.views.push({ words, openArgs, role: 'command' });
    return;
  }
  const fed = inputText(cmd, fd);
  if (fed !== null && fed !== 'unknown') {
    out.views.push({ words, openArgs, role: 'wrapper' });
    out.via.push(`${name} <<`);
    out.scripts.push({ text: fed.text, via: `${name} <<` });
  } else if (fed === 'unknown' || (fd === 0 && (cmd.pipedInput || openArgs)) || scriptFd !== null || dashS) {
    out.views.push({ words, openArgs, role: 'command' });
    out.unjudgeable = `${name} reads the commands it runs from its input, which is only known at run time`;
  } else {
    // An interactive nested shell in the terminal.
    out.views.push({ words, openArgs, role: 'command' });
  }
}

/**
 * The descriptor a script path names (`/dev/stdin` → 0, `/dev/fd/3` → 3, `/proc/self/fd/0`, also
 * spelled `//dev/./stdin`), or null when it is an ordinary file.
 */
export function descriptorPath(w: ShellWord): number | null {
  if (w.dynamic || !w.text.startsWith('/')) return null;
  const p = posix.normalize(w.text.replace(/\/+/g, '/'));
  if (p === '/dev/stdin') return 0;
  const m = /^\/(dev|proc\/self|proc\/thread-self)\/fd\/(\d+)$/.exec(p);
  return m ? Number(m[2]) : null;
}

/**
 * What a command's descriptor `fd` reads: the text of a quoted here-document, of an unquoted one
 * with nothing to expand, or of a literal here-string on it; `'unknown'` when it reads a file,
 * another descriptor, a run-time here-string or an unquoted here-document that expands something;
 * null when nothing is redirected to it.
 */
export function inputText(cmd: SimpleCommand, fd: number): { text: string } | 'unknown' | null {
  let found: { text: string } | 'unknown' | null = null;
  for (const r of cmd.redirects) {
    const rfd = r.fd === null ? (r.op.startsWith('<') ? 0 : 1) : Number(r.fd);
    if (rfd !== fd || !r.op.startsWith('<')) continue;
    // An unquoted here-document expands `$…`, `` `…` `` and `\` before its text is read: with any of
    // them the text is only known at run time (review round 6: `bash <<EOF` + `echo $X`).
    if (r.heredoc !== undefined) found = /['"\\]/.test(r.target?.source ?? '') || !/[$`\\]/.test(r.heredoc) ? { text: r.heredoc } : 'unknown';
    else if (r.op === '<<<' && r.target && !r.target.dynamic) found = { text: r.target.text };
    else found = 'unknown'; // `<`, `<&`, `<>`, an unquoted here-document, a run-time here-string
  }
  return found;
}

/** `eval ARGS…`, `alias NAME=VALUE…`, `trap ACTION SIGNALS…`, `mapfile -C`, `complete -C`: their strings are scripts. */
function scriptBuiltin(name: string, words: ShellWord[], out: Unwrapped): void {
  const args = words.slice(1);
  if (name === 'eval') {
    if (args.length === 0) return;
    if (args.some((w) => w.dynamic)) out.unjudgeable = 'eval runs a string that is only known at run time';
    else out.scripts.push({ text: args.map((w) => w.text).join(' '), via: 'eval' });
    return;
  }
  if (name === 'mapfile' || name === 'readarray' || name === 'complete') {
    // `mapfile -C CALLBACK`, `complete -C COMMAND`: the value is run as a command later.
    for (let k = 0; k < args.length; k++) {
      const t = args[k]!.text;
      if (!/^-[A-Za-z]*C/.test(t) || args[k]!.dynamic) continue;
      const attached = t.slice(t.indexOf('C') + 1);
      const value = attached !== '' ? { ...args[k]!, text: attached } : args[k + 1];
      if (!value) continue;
      if (value.dynamic) out.unjudgeable = `${name} -C runs a command that is only known at run time`;
      else out.scripts.push({ text: value.text, via: `${name} -C` });
    }
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
