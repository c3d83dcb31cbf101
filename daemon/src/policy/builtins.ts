import { INTERPRETER_CODE, interpreterCode, isInterpreter } from './interpreters.js';
import { longNamed } from './options.js';
import { readOnlyLabel } from './read-only.js';
import { globToRegExp, viewArguments } from './rules.js';
import { canonicalPath, globCoversProtected, holdfastHomeMarker, isBareTildeUser, isRawDevice, isRunTimeFolder, MAY_NAME_STARTUP, namesHoldfastConfig, namesShellStartupFile, protectedPath } from './paths.js';
import { POWER, powerAction } from './power.js';
import { PROMPT_HOOK, promptHookChange } from './prompt-hook.js';
import type { SimpleCommand } from './script-scan.js';
import { GIT_RISKY_KEY, gitRunsCommand, programOption } from './program-options.js';
import { expandConstantArithmetic, literalWord, shownWord, subscriptRunsCode, type ShellWord } from './shell-syntax.js';
import { commandName, type CommandView } from './wrappers.js';

/**
 * Built-in checks that hold whatever config.yaml says (docs/command-policy.md "Built-in floor" and
 * "Built-in confirmations"). They are judged on the command actually run (after unwrapping).
 *
 * **The floor — always denied** (like GNU rm's own `--preserve-root`, but wider):
 * - removing, recursively re-owning or re-moding, or moving away a protected path (paths.ts):
 *   `rm -r`/`-R`/`--recursive`, `chmod|chown|chgrp -R`, `find … -delete`, `rsync --delete` into
 *   one, `mv` of one — `rm -rf ~`, `rm -rf /usr`, `rm -rf /*`, `rm -rf ~/..`, `chmod -R 000 /`,
 *   `find ~ -delete`; when an argument is only known at run time the command needs confirmation;
 * - writing a raw device: `dd of=/dev/sda`, `> /dev/nvme0n1`, `tee`/`cp`/`shred` onto `/dev/…`
 *   (not `/dev/null`, ttys and the like);
 * - signalling every process: `kill … -1`, `pkill`/`killall` selecting by user, group, session,
 *   terminal or parent without a name, `pkill -v`, a pattern that matches anything, `killall5`;
 * - a fork bomb: a function that calls itself from a pipeline or subshell (`f(){ f|f; }`).
 *
 * **Built-in confirmations** (denied under `default: deny`; allow rules cannot lift them):
 * - writing holdfast's own configuration: a project's `.holdfast.yaml`, anything in the holdfast
 *   home (`config.yaml`, `token`, state) — as a redirection target or as an argument of a command
 *   that is not read-only;
 * - writing a shell startup file the same way (`~/.bashrc`, `~/.profile`, `~/.zshrc`,
 *   `/etc/profile.d/*`, …; paths.ts `namesShellStartupFile`, issue 18);
 * - controlling holdfast itself: `holdfast`/`holdfastd` (but `list`, `doctor`, `daemon status`,
 *   `--help`, `--version`), `systemctl … holdfast…`, `pkill`/`killall holdfast…`;
 * - shell hooks that make a later name run something else: `alias NAME=…`, `hash -p`, `enable`,
 *   `bind` (key bindings can run commands), `complete -C`;
 * - `git -c KEY=…`/`--config-env` for a key that names a program or loads configuration
 *   (`core.pager`, `core.sshCommand`, `core.fsmonitor`, `alias.*`, `diff.*.textconv`, …) and
 *   `git --exec-path=DIR`;
 * - review round 5: a variable name whose subscript runs code (`read 'a[$(cmd)]'`, rule
 *   `built-in: run-time code`; the scan finds the rest, script-scan.ts `runTimeCode`), changes to
 *   holdfast's prompt hook (prompt-hook.ts) and power actions through any front end (power.ts).
 *
 * Paths are judged in every value a variable set earlier in the line gives them
 * ({@link ShellWord.values}: `d=/usr; rm -rf $d` is denied).
 */

export interface BuiltinFinding {
  decision: 'deny' | 'confirm';
  /** `built-in: protected path`, `built-in: raw device`, … */
  rule: string;
  reason: string;
}

const PROTECTED = 'built-in: protected path';

type PathHit = { why: string } | 'possible' | null;

/**
 * The literal words a dynamic word may become, from variables this line set earlier
 * (`d=/usr; rm -rf $d`: `/usr`; shell-syntax.ts {@link ShellWord.values}); empty otherwise.
 */
function valueWords(w: ShellWord): ShellWord[] {
  return w.dynamic && w.values ? w.values.map((text) => ({ text, dynamic: false, glob: /[*?[]/.test(text), source: w.source })) : [];
}

/** Does this argument name a protected path (or could it, at run time)? */
function protectedArg(w: ShellWord, cwd: string | null): PathHit {
  if (w.dynamic) {
    for (const v of valueWords(w)) {
      const h = protectedArg(v, cwd);
      if (h !== null && h !== 'possible') return { why: `${h.why} (the value ${w.source} was given earlier in the line)` };
    }
    return 'possible';
  }
  const abs = canonicalPath(w.text, cwd);
  if (abs === null) return isBareTildeUser(w.text) ? { why: `${w.text}, a home folder` } : null;
  if (isRunTimeFolder(abs)) return 'possible';
  const why = w.glob ? globCoversProtected(abs, globToRegExp) : protectedPath(abs);
  return why ? { why } : null;
}

function firstHit(args: readonly ShellWord[], cwd: string | null, openArgs: boolean): PathHit {
  let possible = openArgs;
  for (const a of args) {
    const h = protectedArg(a, cwd);
    if (h === 'possible') possible = true;
    else if (h) return h;
  }
  return possible ? 'possible' : null;
}

function pathFinding(hit: PathHit, what: string, shown: () => string): BuiltinFinding | null {
  if (hit === null) return null;
  if (hit === 'possible') return { decision: 'confirm', rule: PROTECTED, reason: `${shown()} ${what}; an argument known only at run time could name a protected folder (/, a system folder, the home folder)` };
  return { decision: 'deny', rule: PROTECTED, reason: `${shown()} ${what} ${hit.why}, which holdfast never does for an agent` };
}

/** `find` tests that select some files only (not `-type`, `-mindepth`, `-xdev`…). */
const FIND_NARROWING = /^-(i?name|i?path|i?wholename|i?regex|i?lname|newer\w*|[acm](time|min)|size|empty|user|group|nouser|nogroup|perm|inum|links|samefile|uid|gid|context)$/;

/** `find` start points: the arguments before the first expression word. */
function findStarts(args: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  let i = 0;
  // GNU find's leading options, in any order: -H -L -P, -D DEBUGOPTS, -O LEVEL, then `--`.
  for (;;) {
    const t = args[i]?.text;
    if (t === undefined) break;
    if (/^-[HLP]+$/.test(t) || /^-O\d*$/.test(t)) i++;
    else if (t === '-D') i += 2;
    else if (t === '--') {
      i++;
      break;
    } else break;
  }
  if (args.some((w) => w.text === '-files0-from')) out.push({ text: '-files0-from', dynamic: true, glob: false, source: '-files0-from' });
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    if (!args[i]!.dynamic && (t.startsWith('-') || t === '(' || t === '!' || t === ')' || t === ',')) break;
    out.push(args[i]!);
  }
  return out;
}

const PATH_COMMANDS = new Set(['rm', 'chmod', 'chown', 'chgrp', 'find', 'rsync', 'mv', 'tar', 'zip']);

function protectedPaths(name: string, view: CommandView, cwd: string | null, shown: () => string): BuiltinFinding | null {
  if (!PATH_COMMANDS.has(name)) return null;
  const a = viewArguments(view);
  const args = view.words.slice(1);
  switch (name) {
    case 'rm':
      return a.flags.has('r') ? pathFinding(firstHit(a.positionals, cwd, view.openArgs), 'removes', shown) : null;
    case 'chmod':
    case 'chown':
    case 'chgrp': {
      if (!a.flags.has('R')) return null;
      // The first positional is the mode or owner — unless --reference gives it, or (chmod) the
      // mode was written like an option (`chmod -R -w /etc`).
      const modeAsOption = name === 'chmod' && args.some((w) => /^-[rwxXst]+$/.test(w.text));
      const given = modeAsOption || a.longs.some((l) => l.name === 'reference');
      return pathFinding(firstHit(given ? a.positionals : a.positionals.slice(1), cwd, view.openArgs), 'recursively changes', shown);
    }
    case 'find': {
      if (!args.some((w) => w.text === '-delete')) return null;
      const hit = firstHit(findStarts(args), cwd, false);
      // With a test that narrows what is deleted (`-name '*.pyc'`), ask instead of refusing.
      if (hit && hit !== 'possible' && args.some((w) => FIND_NARROWING.test(w.text))) {
        return { decision: 'confirm', rule: PROTECTED, reason: `${shown()} deletes matching files anywhere below ${hit.why}` };
      }
      return pathFinding(hit, 'deletes everything below', shown);
    }
    case 'rsync':
      if (a.longs.some((l) => l.name === 'remove-source-files') && a.positionals.length >= 2) {
        const moved = pathFinding(firstHit(a.positionals.slice(0, -1), cwd, false), 'empties (moves away)', shown);
        if (moved) return moved;
      }
      return a.longs.some((l) => l.name.startsWith('del')) ? pathFinding(firstHit(a.positionals.slice(-1), cwd, false), 'deletes files in', shown) : null;
    case 'mv': {
      // With -t DIR every positional is a source.
      const into = targetDirectory(view) !== undefined;
      const sources = into ? a.positionals : a.positionals.slice(0, -1);
      return sources.length > 0 ? pathFinding(firstHit(sources, cwd, false), 'moves away', shown) : null;
    }
    case 'tar': {
      // `tar --remove-files` deletes every input once archived: judged as `rm -r` of them.
      const inputs = tarRemovedInputs(args);
      return inputs ? pathFinding(firstHit(inputs, cwd, view.openArgs), 'removes (tar --remove-files)', shown) : null;
    }
    case 'zip': {
      // `zip -m|--move ARCHIVE FILES…` deletes the files once zipped: judged as `rm -r` of them.
      const inputs = zipMovedInputs(args);
      return inputs ? pathFinding(firstHit(inputs, cwd, view.openArgs), 'removes (zip -m)', shown) : null;
    }
    default:
      return null;
  }
}

/** The files `zip -m|--move` deletes (every operand after the archive), or null without it; `-@` (names from input) adds a run-time word. */
function zipMovedInputs(args: readonly ShellWord[]): ShellWord[] | null {
  let moves = false;
  const operands: ShellWord[] = [];
  const fromInput: ShellWord[] = [];
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (options && t === '--') {
      options = false;
      continue;
    }
    if (options && !w.dynamic && t.startsWith('--') && t.length > 2) {
      if (longNamed(t, ['move'])) moves = true;
      continue;
    }
    if (options && !w.dynamic && t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const l = t[j]!;
        if (l === 'm') moves = true;
        if (l === '@') fromInput.push({ ...w, dynamic: true });
        if ('bntOZPsY'.includes(l)) {
          if (j + 1 === t.length) i++;
          break;
        }
      }
      continue;
    }
    operands.push(w);
  }
  return moves ? [...operands.slice(1), ...fromInput] : null;
}

/** tar's short options that take a value (the next word, or the rest of the cluster). */
const TAR_SHORT_VALUE = 'fCbTXgKNLVHFIs';
/** tar's long options that take the next word as their value when not written `--opt=value`. */
const TAR_LONG_VALUE = ['file', 'directory', 'files-from', 'exclude-from', 'exclude', 'blocking-factor', 'listed-incremental', 'starting-file', 'newer', 'newer-mtime', 'after-date', 'tape-length', 'label', 'format', 'use-compress-program', 'to-command', 'transform', 'xform', 'owner', 'group', 'mode', 'mtime', 'suffix', 'record-size', 'info-script', 'new-volume-script', 'rsh-command', 'volno-file', 'index-file', 'checkpoint-action', 'exclude-tag', 'exclude-tag-all', 'exclude-tag-under', 'sort', 'owner-map', 'group-map', 'level', 'occurrence', 'pax-option', 'quoting-style', 'strip-components', 'hole-detection', 'warning'];
/** tar's long options without a separate value that a value option's name starts with, and `--remove-files`: resolved exactly. */
const TAR_LONGS = [...TAR_LONG_VALUE, 'remove-files', 'checkpoint', 'backup', 'atime-preserve', 'one-top-level', 'exclude-vcs', 'exclude-vcs-ignores', 'exclude-caches', 'exclude-caches-all', 'exclude-caches-under', 'exclude-backups'];

/**
 * The files `tar --remove-files` (any abbreviation) deletes: its member arguments, placed under
 * the folder a preceding `-C DIR` / `--directory DIR` names (a run-time folder makes them
 * run-time words); `-T`/`--files-from` adds a run-time word. Null without `--remove-files`.
 * Old-style bundled options (`tar cf A.tar …`) take their values in order.
 */
function tarRemovedInputs(args: readonly ShellWord[]): ShellWord[] | null {
  let removes = false;
  let dir: ShellWord | null = null;
  const inputs: ShellWord[] = [];
  const unknown = (w: ShellWord): ShellWord => ({ ...w, dynamic: true });
  const place = (w: ShellWord): ShellWord => {
    if (!dir || w.text.startsWith('/') || w.text.startsWith('~')) return w;
    return { ...w, text: `${dir.text}/${w.text}`, dynamic: w.dynamic || dir.dynamic };
  };
  const option = (letter: string, value: ShellWord | undefined): void => {
    if (letter === 'C' && value) dir = value;
    if (letter === 'T' && value) inputs.push(unknown(value));
  };
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (options && t === '--') {
      options = false;
      continue;
    }
    if (options && !w.dynamic && t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      const named = longNamed(t, TAR_LONGS);
      if (named === 'remove-files') {
        removes = true;
        continue;
      }
      if (named === null || !TAR_LONG_VALUE.includes(named)) continue;
      const value = eq >= 0 ? { ...w, text: t.slice(eq + 1) } : args[++i];
      option(named === 'directory' ? 'C' : named === 'files-from' ? 'T' : '', value);
      continue;
    }
    const oldStyle = i === 0 && !w.dynamic && /^[A-Za-z]+$/.test(t);
    if (options && !w.dynamic && (oldStyle || (t.startsWith('-') && t.length > 1))) {
      const letters = oldStyle ? t : t.slice(1);
      for (let j = 0; j < letters.length; j++) {
        const l = letters[j]!;
        if (!TAR_SHORT_VALUE.includes(l)) continue;
        if (oldStyle) option(l, args[++i]);
        else {
          option(l, j + 1 < letters.length ? { ...w, text: letters.slice(j + 1) } : args[++i]);
          break;
        }
      }
      continue;
    }
    inputs.push(place(w));
  }
  return removes ? inputs : null;
}

/**
 * `-t DIR`, `-tDIR`, `--target-directory[=]DIR` of `cp`/`mv`/`install`: the folder every source
 * goes into, or undefined.
 */
function targetDirectory(view: CommandView): ShellWord | undefined {
  const w = view.words;
  for (let i = 1; i < w.length; i++) {
    const t = w[i]!.text;
    if (t === '--') return undefined;
    if (t === '-t' || t === '--target-directory' || t === '--target') return w[i + 1];
    if (t.startsWith('--target-directory=')) return { ...w[i]!, text: t.slice('--target-directory='.length) };
    if (/^-[A-Za-z]*t./.test(t) && !t.startsWith('--')) return { ...w[i]!, text: t.slice(t.indexOf('t') + 1) };
    if (/^-[A-Za-z]*t$/.test(t)) return w[i + 1];
  }
  return undefined;
}

/** A folder under `/dev` (`/dev`, `/dev/disk/by-id/`): a file copied into it may land on a disk's name. */
function isDeviceFolder(abs: string, text: string): boolean {
  return abs === '/dev' || ((text.endsWith('/') || abs === '/dev/disk' || abs.startsWith('/dev/disk/')) && abs.startsWith('/dev/') && !/^\/dev\/(shm|mqueue|pts|fd)(\/|$)/.test(abs));
}

/** Commands that write (or replace) every file named as a positional argument. */
const FILE_WRITERS = new Set(['tee', 'shred', 'truncate', 'fallocate', 'wipefs', 'blkdiscard', 'mkswap']);

function rawDevice(name: string, view: CommandView, cmd: SimpleCommand, cwd: string | null, shown: () => string): BuiltinFinding | null {
  let unplaced: string | null = null;
  // `path` maps the word's text to the file written (`of=/dev/sda` → `/dev/sda`).
  const device = (w: ShellWord | undefined, path: (t: string) => string = (t) => t): string | null => {
    if (!w) return null;
    const tilde = /^~[+-]/.test(path(w.text)); // run-time to the parser, placed (as unknown) here
    for (const text of (w.dynamic && !tilde ? (w.values ?? []) : [w.text]).map(path)) {
      if (/^~[+-]/.test(text)) {
        unplaced ??= text; // `~+/sda` after `cd /dev`: the current folder, known at run time only
        continue;
      }
      const abs = canonicalPath(text, cwd);
      if (abs !== null && isRunTimeFolder(abs)) unplaced ??= text; // `/proc/self/cwd/sda`, folder unknown
      else if (abs !== null && isRawDevice(abs)) return abs;
    }
    return null;
  };
  let hit: string | null = null;
  for (const r of cmd.redirects) if (r.writes && !hit) hit = device(r.target ?? undefined);
  if (!hit && name === 'dd') for (const w of view.words.slice(1)) if (!hit && w.text.startsWith('of=')) hit = device(w, (t) => t.slice(3));
  if (!hit && (FILE_WRITERS.has(name) || (name === 'sed' && view.words.some((w) => /^-[A-Za-z]*i/.test(w.text) || longNamed(w.text, ['in-place']) !== null)))) {
    for (const w of viewArguments(view).positionals) hit ??= device(w);
  }
  if (!hit && name === 'sysctl') {
    // `sysctl kernel.core_pattern=…`, `sysctl -w kernel/sysrq=1`: the key is a file under /proc/sys.
    for (const w of view.words.slice(1)) {
      const eq = w.text.indexOf('=');
      if (w.text.startsWith('-') || eq <= 0) continue;
      const key = w.text.slice(0, eq);
      hit ??= device(w, () => `/proc/sys/${key.includes('/') ? key : key.replace(/\./g, '/')}`);
    }
  }
  if (!hit && name === 'find') {
    // -fprint FILE, -fprint0 FILE, -fls FILE, -fprintf FILE FORMAT write FILE.
    const w = view.words;
    for (let i = 1; i < w.length - 1 && !hit; i++) if (/^-(fprint0?|fls|fprintf)$/.test(w[i]!.text)) hit = device(w[i + 1]);
  }
  if (!hit && (name === 'cp' || name === 'install' || name === 'ln' || name === 'mv')) {
    const a = viewArguments(view);
    const into = targetDirectory(view);
    const dest = into ?? a.positionals[a.positionals.length - 1];
    hit = device(dest);
    const abs = !hit && dest && !dest.dynamic ? canonicalPath(dest.text, cwd) : null;
    if (abs !== null && isDeviceFolder(abs, dest!.text) && (into !== undefined || a.positionals.length >= 2)) hit = `${abs}/…`;
  }
  if (hit) return { decision: 'deny', rule: 'built-in: raw device', reason: `${shown()} writes the device ${hit}, which holdfast never does for an agent` };
  if (unplaced) return { decision: 'confirm', rule: 'built-in: raw device', reason: `${shown()} writes ${unplaced}, a folder only known at run time, which could be /dev` };
  return null;
}

const KILL_SELECTORS = /^-[A-Za-z]*[uUgGPts]/;
/** A signal given as an option: `-9`, `-KILL`, `-SIGSTOP`, `-USR1`. */
const SIGNAL_OPTION = /^-(\d+|(SIG)?[A-Z][A-Z0-9+-]{2,})$/;
const KILL_SELECTORS_LONG = /^--(euid|uid|group|pgroup|parent|session|terminal)\b/;
/** Real process names a pattern that "matches everything" matches too (`.`, `[^x]`, `s*`, `''`). */
const EVERY_NAME = ['bash', 'node', 'systemd', 'holdfastd', 'sshd', 'init', 'Xorg', 'kworker/0:1', 'sleep', 'sh'];

/** A pkill/killall pattern that matches every process name (`.`, `.*`, `''`). */
function matchesEverything(pattern: string): boolean {
  try {
    const re = new RegExp(pattern);
    return EVERY_NAME.every((n) => re.test(n));
  } catch {
    return false;
  }
}

/**
 * The values a kill pid argument may have: a number in any spelling kill or bash accepts (spaces,
 * a sign, leading zeros read as decimal or octal, `0x` hex), a constant arithmetic expansion
 * (`$((1))`, `-$[1]`), or a value a variable was given earlier in the line (`p=-1; kill $p`).
 * Empty when it is not a number or only known at run time.
 */
function pidValues(w: ShellWord): number[] {
  if (w.dynamic) {
    // A value set earlier in the line (`p=-1; kill $p`), or constant arithmetic (`-$((1))`).
    const expanded = expandConstantArithmetic(w.source);
    const texts = [...(w.values ?? []), ...(expanded === null ? [] : [expanded])];
    return texts.flatMap((text) => pidValues({ text, dynamic: false, glob: false, source: text }));
  }
  const m = /^\s*([+-]?)\s*([+-]?)(0[xX][0-9a-fA-F]+|[0-9]+)\s*$/.exec(w.text);
  if (!m) return [];
  const sign = (m[1] === '-') !== (m[2] === '-') ? -1 : 1; // `-$((-1))` is 1
  const d = m[3]!;
  const values = /^0[xX]/.test(d) ? [parseInt(d.slice(2), 16)] : [parseInt(d, 10), ...(/^0[0-7]+$/.test(d) ? [parseInt(d, 8)] : [])];
  return values.map((v) => sign * v);
}

function killAll(name: string, view: CommandView, shown: () => string): BuiltinFinding | null {
  if (name !== 'kill' && name !== 'pkill' && name !== 'killall' && name !== 'killall5') return null;
  const args = view.words.slice(1);
  const found = (how: string): BuiltinFinding => ({ decision: 'deny', rule: 'built-in: kill all', reason: `${shown()} ${how}, which would also end holdfast and the desktop` });
  if (name === 'killall5') return found('signals every process');
  if (name === 'kill') {
    let i = 0;
    let signal = false;
    let signalName = 'TERM';
    for (; i < args.length; i++) {
      const t = args[i]!.text;
      if (t === '--') {
        i++;
        break;
      }
      if (t === '-l' || t === '-L' || t === '--list' || t === '--table') return null;
      if (t === '-s' || t === '-n' || t === '--signal') {
        signalName = args[i + 1]?.text ?? '';
        i++;
        signal = true;
        continue;
      }
      if (!signal && t.startsWith('-') && t.length > 1) {
        signalName = t.slice(1);
        signal = true;
        continue;
      }
      break;
    }
    // `-1`, `-01`, `' -1'`, `-0x1`, `$((0-1))`: every spelling whose value is -1 (or 1).
    const pids = args.slice(i).flatMap(pidValues);
    if (pids.includes(-1)) return found('signals every process (pid -1)');
    // pid 1 is init: SIGINT reboots (ctrl-alt-del), SIGPWR and SIGRTMIN+4 power off… Only signal 0 (a liveness check) is harmless.
    if (pids.includes(1) && !/^(SIG)?0$|^0$/.test(signalName)) return { decision: 'deny', rule: 'built-in: kill all', reason: `${shown()} signals init (pid 1), which can reboot or stop the machine and every process with it` };
    return null;
  }
  if (name !== 'pkill' && name !== 'killall') return null;
  let patterns = 0;
  let selectors = false;
  let everything = false;
  const valued = name === 'pkill' ? /^-[A-Za-z]*[uUgGPtsF]$/ : /^-[A-Za-z]*[uosnyYZ]$/;
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (t === '-v' || t === '--inverse') everything = true;
    if (t.startsWith('--')) {
      if (KILL_SELECTORS_LONG.test(t) || (name === 'killall' && /^--(user)\b/.test(t))) selectors = true;
      if (!t.includes('=') && /^--(euid|uid|group|pgroup|parent|session|terminal|user|signal|ns|nslist|pidfile|older-than|younger-than)$/.test(t)) i++;
      continue;
    }
    if (SIGNAL_OPTION.test(t)) continue;
    if (t.startsWith('-') && t.length > 1) {
      if (name === 'pkill' ? KILL_SELECTORS.test(t) : /^-[A-Za-z]*u/.test(t)) selectors = true;
      if (name === 'killall' && /^-[A-Za-z]*r/.test(t)) {
        // killall -r: the names are regular expressions
        const next = args[i + 1];
        if (next && !next.dynamic && matchesEverything(next.text)) everything = true;
      }
      if (valued.test(t)) i++;
      continue;
    }
    patterns++;
    if (name === 'pkill' && !args[i]!.dynamic && matchesEverything(args[i]!.text)) everything = true;
  }
  if (everything) return found('selects every process');
  if (selectors && patterns === 0) return found('selects every process of a user, group, session, terminal or parent');
  return null;
}

const HOLDFAST_READ_ONLY = new Set(['list', 'doctor', 'help', '--help', '-h', '--version', '-V', 'status']);

/** Entry points of holdfast's own processes, as `node` runs them from a checkout or a package. */
const HOLDFAST_ENTRY = /(^|\/)(adapter\/dist\/cli\/main\.js|daemon\/dist\/main\.js|guardian\/dist\/guardian\.mjs)$/;
/** `pkill -f` / `killall -r` patterns that select holdfast's processes (or every node process). */
const HOLDFAST_PROCESS = /holdfast|guardian|daemon\/dist|adapter\/dist|dist\/main|dist\/cli/;
/** Option letters of `node` that take a value as the next word. */
const NODE_OPTS_WITH_VALUE = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--conditions', '-C', '--env-file', '--input-type']);

function holdfastItself(name: string, view: CommandView, shown: () => string): string | null {
  if (name === 'node' || name === 'nodejs') {
    // `node …/adapter/dist/cli/main.js kill --all` is the holdfast CLI under another name.
    const words = view.words;
    let i = 1;
    while (i < words.length && words[i]!.text.startsWith('-')) i += NODE_OPTS_WITH_VALUE.has(words[i]!.text) ? 2 : 1;
    const script = words[i];
    if (!script || script.dynamic || !HOLDFAST_ENTRY.test(script.text)) return null;
    const as = script.text.endsWith('cli/main.js') ? 'holdfast' : 'holdfastd';
    return holdfastItself(as, { ...view, words: [literalWord(as), ...words.slice(i + 1)] }, shown);
  }
  if (name === 'kill') {
    // `kill $(pgrep -f holdfast)`, `kill -9 \`pidof holdfastd\``: holdfast's pids from a lookup.
    const lookup = view.words.slice(1).find((w) => w.dynamic && /\$\(|`/.test(w.source) && (HOLDFAST_PROCESS.test(w.source) || /\bnode(js)?\b/.test(w.source)));
    return lookup ? `${shown()} signals the processes ${lookup.source} finds: holdfast itself` : null;
  }
  if (name !== 'holdfast' && name !== 'holdfastd' && name !== 'systemctl' && name !== 'pkill' && name !== 'killall') return null;
  const args = view.words.slice(1).filter((w) => !w.text.startsWith('--home'));
  if (name === 'holdfast' || name === 'holdfastd') {
    const sub = args.find((w) => !w.text.startsWith('-') || HOLDFAST_READ_ONLY.has(w.text));
    if (name === 'holdfast' && sub && HOLDFAST_READ_ONLY.has(sub.text)) return null;
    if (name === 'holdfast' && sub?.text === 'daemon' && args[args.indexOf(sub) + 1]?.text === 'status') return null;
    return `${shown()} controls holdfast itself`;
  }
  if (name === 'systemctl' && args.some((w) => /holdfast/.test(w.text))) {
    const verb = args.find((w) => !w.text.startsWith('-'))?.text ?? '';
    return /^(status|show|is-active|is-enabled|is-failed|cat|list-units|list-unit-files)$/.test(verb) ? null : `${shown()} controls the holdfast service`;
  }
  if (name === 'pkill' || name === 'killall') {
    const patterns = args.filter((w) => !w.text.startsWith('-'));
    if (patterns.some((w) => HOLDFAST_PROCESS.test(w.text))) return `${shown()} signals holdfast itself`;
    if (patterns.some((w) => /^(\^?node(js)?\$?|\.\*node.*)$/.test(w.text))) return `${shown()} signals every node process — holdfast's daemon, adapter and guardians included`;
  }
  return null;
}

/** Builtins that evaluate a variable name they are given (its array subscript is expanded then). */
const EVALUATES_NAMES = new Set(['wait', 'read', 'printf', 'mapfile', 'readarray', 'unset', 'getopts', 'declare', 'typeset', 'local', 'export', 'readonly', 'test', '[']);

const HOOK_COMMANDS = new Set(['alias', 'hash', 'enable', 'bind', 'complete', 'compgen', 'fc', 'history', 'shopt', 'crontab']);

function shellHook(name: string, view: CommandView): string | null {
  const args = view.words.slice(1);
  switch (name) {
    case 'alias':
      return args.some((w) => w.text.includes('=')) ? 'alias makes a later command name run something else, judged under the wrong name' : null;
    case 'hash':
      return args.some((w) => /^-[A-Za-z]*p/.test(w.text)) ? 'hash -p binds a command name to another program' : null;
    case 'enable':
      return args.some((w) => !/^-[aps]+$/.test(w.text)) ? 'enable loads or disables shell builtins, so a name runs something else' : null;
    case 'bind':
      return args.some((w) => !/^-[pPvVsSlX]+$/.test(w.text)) ? 'bind changes key bindings, which can type or run commands' : null;
    case 'complete':
    case 'compgen':
      return args.some((w) => /^-[A-Za-z]*C/.test(w.text)) ? `${name} -C runs a command on completion` : null;
    case 'fc':
      // `fc -l` only lists; any other use edits and re-runs lines of the history, which the policy never saw as one line.
      return args.length > 0 && args.every((w) => !w.dynamic) && /^-[nr]*l[nr]*$/.test(args[0]!.text) ? null : 'fc re-runs lines from the shell history, which are not judged again';
    case 'crontab': {
      // Listing is fine; installing (`crontab FILE`, `crontab -`), editing or removing a crontab
      // sets up commands that run later, never judged.
      const rest = args.filter((w, k) => !(args[k - 1]?.text === '-u'));
      return rest.every((w) => w.text === '-l' || w.text === '-u') && rest.some((w) => w.text === '-l') ? null : 'crontab installs commands that run later, outside any judged command';
    }
    case 'shopt':
      // cdable_vars (`cd x` goes to $x), cdspell (`cd /uss` goes to /usr), autocd (a folder name alone is a cd).
      return args.some((w) => /^-[a-z]*s/.test(w.text)) && args.some((w) => w.dynamic || /^(cdable_vars|cdspell|autocd)$/.test(w.text))
        ? `shopt ${args.map((w) => w.text).join(' ')} changes where cd goes, so later commands run where the policy does not expect`
        : null;
    case 'history':
      return args.some((w) => w.dynamic || /^-[A-Za-z]*[snrw]/.test(w.text)) ? 'history -s/-r/-n/-w puts lines into the history (for fc to run) or writes it to a file' : null;
    default:
      return null;
  }
}


function gitConfig(view: CommandView): string | null {
  const args = view.words.slice(1);
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (!t.startsWith('-')) return null; // the subcommand: global options end here
    if (t === '-C' || t === '--git-dir' || t === '--work-tree' || t === '--namespace' || t === '--super-prefix') {
      i++;
      continue;
    }
    let kv: string | null = null;
    if (t === '-c' || t === '--config-env') kv = args[++i]?.text ?? null;
    else if (t.startsWith('-c')) kv = t.slice(2);
    else if (t.startsWith('--config-env=')) kv = t.slice('--config-env='.length);
    else if (t.includes('=') && longNamed(t, ['exec-path'])) return 'git --exec-path makes git run its commands from another folder';
    if (kv !== null && (w.dynamic || args[i]?.dynamic || GIT_RISKY_KEY.test(kv))) return `git -c ${kv.split('=')[0]} sets a configuration that names a program or loads configuration`;
  }
  return null;
}

/**
 * Cheap pre-test for {@link namesHoldfastConfig}: a path into the holdfast home or a project config
 * spells the home's folder name or `.holdfast`, is a glob, or is relative to a folder inside it.
 */
function mayNameHoldfastConfig(w: ShellWord, cwdInside: boolean): boolean {
  // A run-time prefix does not hide a literal `.holdfast.yaml` / `.holdfast/` (`"$PWD/.holdfast.yaml"`).
  if (w.dynamic) return w.text.includes('.holdfast');
  return w.glob || cwdInside || w.text.includes('.holdfast') || (w.text.includes('/') && w.text.includes(holdfastHomeMarker()));
}

/** `$HOLDFAST_HOME`, `${HOLDFAST_HOME}`: the holdfast home where the shell has it set. */
const HOLDFAST_HOME_VARIABLE = /\$\{?HOLDFAST_HOME\b/;

/**
 * Does this word name holdfast's configuration — as written, as `KEY=PATH` (`of=…`), in any value
 * a variable set earlier in the line gives it, or through `$HOLDFAST_HOME`?
 */
function namesConfig(w: ShellWord, cwd: string | null, cwdInside: boolean, afterEquals: boolean): boolean {
  if (w.dynamic && HOLDFAST_HOME_VARIABLE.test(w.source)) return true;
  return [w, ...valueWords(w)].some((x) => {
    if (!mayNameHoldfastConfig(x, cwdInside)) return false;
    const eq = afterEquals ? x.text.indexOf('=') : -1;
    return namesHoldfastConfig(x.text, x.glob, cwd, globToRegExp) || (eq > 0 && namesHoldfastConfig(x.text.slice(eq + 1), x.glob, cwd, globToRegExp));
  });
}

function holdfastConfigWrite(view: CommandView, cmd: SimpleCommand, cwd: string | null, shown: () => string): string | null {
  const cwdInside = cwd !== null && (cwd.includes('.holdfast') || cwd.includes(holdfastHomeMarker()));
  for (const r of cmd.redirects) {
    if (r.writes && r.target && namesConfig(r.target, cwd, cwdInside, false)) return `${shown()} writes ${r.target.source}, holdfast's own configuration`;
  }
  let hit: ShellWord | undefined;
  for (let i = 1; i < view.words.length && !hit; i++) {
    const w = view.words[i]!;
    if (namesConfig(w, cwd, cwdInside, true)) hit = w;
  }
  if (!hit || readOnlyLabel(view, cmd.redirects) !== null) return null;
  return `${shown()} names ${hit.text}, holdfast's own configuration (the rules the agent is bound by)`;
}

/** The startup file a word names (see {@link namesShellStartupFile}), with a cheap pre-test; also through the values of its variables. */
function startupTarget(w: ShellWord, cwd: string | null): string | null {
  for (const v of valueWords(w)) {
    const hit = startupTarget(v, cwd);
    if (hit !== null) return hit;
  }
  if (!MAY_NAME_STARTUP.test(w.text)) return null;
  return namesShellStartupFile(w.text, w.glob, w.dynamic, cwd, globToRegExp);
}

/**
 * Writing a shell startup file (issue 18): a redirection into one (`echo CMD >> ~/.bashrc`), or a
 * command that is not read-only naming one (`tee -a ~/.profile`, `cp x ~/.zshrc`, `sed -i … ~/.bashrc`,
 * `ln -sf x /etc/profile.d/a.sh`) — every new shell would then run what it adds, never judged.
 */
function startupFileWrite(view: CommandView, cmd: SimpleCommand, cwd: string | null, shown: () => string): string | null {
  const name = commandName(view.words[0]!);
  if (name === 'source' || name === '.') return null; // runs it (judged like any script), writes nothing
  const why = (path: string): string => `${path}, a shell startup file: every new shell (the session's own after a reset included) would run what it adds, unjudged`;
  for (const r of cmd.redirects) {
    const hit = r.writes && r.target ? startupTarget(r.target, cwd) : null;
    if (hit) return `${shown()} writes ${why(hit)}`;
  }
  let hit: string | null = null;
  for (let i = 1; i < view.words.length && hit === null; i++) {
    const w = view.words[i]!;
    const eq = w.text.indexOf('=');
    hit = startupTarget(w, cwd) ?? (eq > 0 ? startupTarget({ ...w, text: w.text.slice(eq + 1) }, cwd) : null);
  }
  if (hit === null || readOnlyLabel(view, cmd.redirects) !== null) return null;
  return `${shown()} names ${why(hit)}`;
}

/**
 * The built-in findings on a command actually run (see the file comment): the first floor
 * finding (`deny`, or `confirm` for a run-time argument), else the first built-in confirmation.
 * `cwd` is the working directory when known (relative paths are judged only then).
 */
export function builtinFinding(view: CommandView, cmd: SimpleCommand, cwd: string | null): BuiltinFinding | null {
  const head = view.words[0]!;
  if (head.dynamic) return null;
  const name = commandName(head);
  const shown = (): string => view.words.map(shownWord).join(' ');
  const floor = protectedPaths(name, view, cwd, shown) ?? rawDevice(name, view, cmd, cwd, shown) ?? killAll(name, view, shown);
  if (floor?.decision === 'deny') return floor;
  if (cmd.scope && cmd.scope.forked && cmd.scope.functions.includes(name)) {
    return { decision: 'deny', rule: 'built-in: fork bomb', reason: `function ${name} calls itself from a pipeline or subshell (a fork bomb)` };
  }
  if (floor) return floor;
  const confirm = (rule: string, reason: string | null): BuiltinFinding | null => (reason ? { decision: 'confirm', rule, reason } : null);
  return (
    confirm('built-in: holdfast config', holdfastConfigWrite(view, cmd, cwd, shown)) ??
    confirm('built-in: shell startup file', startupFileWrite(view, cmd, cwd, shown)) ??
    confirm('built-in: holdfast', holdfastItself(name, view, shown)) ??
    (HOOK_COMMANDS.has(name) ? confirm('built-in: shell hook', shellHook(name, view)) : null) ??
    (EVALUATES_NAMES.has(name) ? confirm(RUN_TIME_CODE, evaluatedNameRunsCode(name, view, cmd)) : null) ??
    confirm(PROMPT_HOOK, promptHookChange(name, view)) ??
    confirm(POWER, powerAction(name, view)) ??
    (name === 'git' ? confirm('built-in: git config', gitConfig(view)) ?? confirm('built-in: program option', gitRunsCommand(view)) : null) ??
    confirm('built-in: program option', programOption(name, view)) ??
    (isInterpreter(name) ? confirm(INTERPRETER_CODE, interpreterCode(name, view, cmd)) : null)
  );
}

/**
 * Variables a builtin assigns without an `=` in sight: `read [-a] NAME…`, `printf -v NAME`,
 * `mapfile|readarray NAME`, `getopts OPTSTRING NAME`, `unset NAME`, and the targets of a nameref
 * (`declare|typeset|local -n REF=TARGET`), without their array subscripts (`PROMPT_COMMAND[1]` is
 * `PROMPT_COMMAND`). A nameref whose target is not given or only known at run time
 * (`declare -n ref`, `declare -n ref=$X`: a later `ref=…` assigns whatever it names) counts as
 * `PROMPT_COMMAND`, the variable holdfast's own prompt hook lives in, so it asks.
 */
export function variablesAssignedBy(view: CommandView, cmd: SimpleCommand): string[] {
  return assignedNames(view, cmd).map((n) => n.replace(/\[[^]*$/, ''));
}

/** The rule of expansions that run code nobody judged (`a[$(cmd)]` evaluated again, `${X@P}`). */
export const RUN_TIME_CODE = 'built-in: run-time code';

/**
 * A builtin that evaluates a variable name written with a subscript holding code (`read 'a[$(cmd)]'`,
 * `printf -v 'a[$(cmd)]'`, `unset 'a[$(cmd)]'`, `test -v 'a[$(cmd)]'`): bash expands the subscript
 * when it evaluates the name, so cmd runs although it was only a quoted string. Returns why, or null.
 */
function evaluatedNameRunsCode(name: string, view: CommandView, cmd: SimpleCommand): string | null {
  const args = view.words.slice(1);
  const tested = name === 'test' || name === '[' ? args.filter((_, k) => args[k - 1]?.text === '-v').map((w) => w.text) : [];
  const hit = [...assignedNames(view, cmd), ...tested].find(subscriptRunsCode);
  return hit === undefined ? null : `${name} evaluates the name ${hit}, whose array subscript runs a command no rule judged`;
}

/** {@link variablesAssignedBy} with the subscripts as written. */
function assignedNames(view: CommandView, cmd: SimpleCommand): string[] {
  const head = view.words[0]!;
  if (head.dynamic) return [];
  const name = commandName(head);
  const args = view.words.slice(1);
  const out: string[] = [];
  const positional: ShellWord[] = [];
  const withValue = name === 'read' ? 'adinNptu' : name === 'mapfile' || name === 'readarray' ? 'dnOsuCc' : name === 'printf' ? 'v' : '';
  switch (name) {
    case 'read':
    case 'mapfile':
    case 'readarray':
    case 'printf': {
      for (let i = 0; i < args.length; i++) {
        const t = args[i]!.text;
        if (t === '--') {
          positional.push(...args.slice(i + 1));
          break;
        }
        if (t.startsWith('-') && t.length > 1 && !args[i]!.dynamic) {
          for (let j = 1; j < t.length; j++) {
            if (!withValue.includes(t[j]!)) continue;
            const value = j + 1 < t.length ? [t.slice(j + 1)] : namesOf(args[++i]);
            if (t[j] === 'a' || t[j] === 'v') out.push(...value);
            break;
          }
          continue;
        }
        positional.push(args[i]!);
        if (name === 'printf') break; // the format: the rest are its arguments
      }
      if (name === 'read') out.push(...positional.flatMap(namesOf));
      if (name === 'mapfile' || name === 'readarray') out.push(...(positional.length > 0 ? namesOf(positional[positional.length - 1]) : ['MAPFILE']));
      return out;
    }
    case 'getopts':
      return namesOf(args[1]);
    case 'wait': {
      // `wait -p NAME` (bash 5.1) assigns the pid that ended.
      const k = args.findIndex((w) => /^-[A-Za-z]*p$/.test(w.text));
      return k >= 0 ? namesOf(args[k + 1]) : [];
    }
    case 'unset':
      // `unset PROMPT_COMMAND` changes the shell as much as assigning it (`unset -f` removes functions).
      if (args.some((w) => /^-[A-Za-z]*f/.test(w.text))) return [];
      return args.filter((w) => !w.text.startsWith('-')).flatMap(namesOf);
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly': {
      // A quoted assignment word (`declare "CD""PATH=/"`) is not an assignment to the parser, but is to bash.
      const quoted = args.filter((w) => !w.dynamic && /^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=/s.test(w.text) && !cmd.assigns.some((a) => w.text.startsWith(`${a.name}=`) || w.text.startsWith(`${a.name}+=`)));
      const names = quoted.map((w) => /^([A-Za-z_][A-Za-z0-9_]*(\[.*\])?)\+?=/s.exec(w.text)![1]!);
      // `declare "$v=id"`: the name is only known at run time (or from a value set earlier in the line).
      for (const w of args) if (w.dynamic && /^[^=]*\$[^=]*=/.test(w.source)) names.push(...namesOf(w).map((n) => n.replace(/\+?=[^]*$/, '')));
      // An attribute on a variable of the list (`declare -u PROMPT_COMMAND`, `declare -i PS1`,
      // `readonly PS0`) changes every later value, the prompt hook's own assignments included.
      const options = args.filter((w) => /^[-+][A-Za-z]+$/.test(w.text)).map((w) => w.text.slice(1)).join('');
      if (name === 'readonly' || /[ilucrnaA]/.test(options)) names.push(...args.filter((w) => !w.dynamic && /^[A-Za-z_][A-Za-z0-9_]*$/.test(w.text)).map((w) => w.text));
      if (name === 'export' || name === 'readonly' || !/n/.test(options)) return names;
      // A nameref with no target, or one known only at run time, may point anywhere (see above).
      const targets = cmd.assigns.map((a) => (a.value === null || a.value.dynamic || a.value.text === '' ? UNKNOWN_NAME : a.value.text));
      const naked = args.some((w) => !w.text.startsWith('-') && !w.text.includes('=')) ? [UNKNOWN_NAME] : [];
      return [...names, ...targets, ...naked];
    }
    default:
      return [];
  }
}

/**
 * What a variable-name argument names: its text; for a name only known at run time, the values a
 * variable set earlier in the line gives it, else {@link UNKNOWN_NAME}.
 */
function namesOf(w: ShellWord | undefined): string[] {
  if (!w) return [];
  if (!w.dynamic) return [w.text];
  return w.values && w.values.length > 0 ? w.values : [UNKNOWN_NAME];
}

/** A variable name only known at run time counts as the prompt hook's `PROMPT_COMMAND`: it asks. */
const UNKNOWN_NAME = 'PROMPT_COMMAND';
