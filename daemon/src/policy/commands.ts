import { builtinFinding, RUN_TIME_CODE, variablesAssignedBy } from './builtins.js';
import { environmentRisk, evaluateEnvironment } from './environment.js';
import { canonicalPath, changeDir, dirsAt, NO_DIRS, unionDirs, UNKNOWN_DIRS, type Dirs } from './paths.js';
import { hookFunctionName, PROMPT_HOOK, sourcesUnjudgedScript } from './prompt-hook.js';
import { readOnlyLabel } from './read-only.js';
import { compileRules, matchLoose, matchStrict, rulesFor, type CommandRules, type CompiledRules } from './rules.js';
import { refusal, scanCommandLine, type Refusal, type SimpleCommand } from './script-scan.js';
import { literalWord, shownWord, type ShellWord } from './shell-syntax.js';
import { findUnsafeCharacter } from './text-safety.js';
import { commandName, unwrap, type CommandView, type Unwrapped } from './wrappers.js';

export type { CommandRules } from './rules.js';
export { evaluateEnvironment, type EnvironmentVerdict, type EnvironmentVariableVerdict } from './environment.js';
export { evaluateStdin, type StdinInput, type StdinVerdict } from './stdin.js';

/**
 * The command policy (issue 5, docs/command-policy.md). Every command line `execute` runs — shell
 * text, an argv vector, a project task's command, `edit`'s `verify_command` — is judged here
 * before anything reaches a shell.
 *
 * 1. The line is parsed with a real shell parser (mvdan-sh) into simple commands ("segments"),
 *    split at `&&`, `||`, `;`, `|`, `|&`, newlines and inside compound commands, command and
 *    process substitutions (`$(…)`, backticks, `<(…)`, `>(…)`) and unquoted here-document bodies
 *    (issue 8: judged, not refused); redirections belong to their segment.
 * 2. Always refused, whatever the rules: NUL and the other control characters of text-safety.ts
 *    (tab and newline excepted), a lone `&` or `coproc` (the verdict then carries
 *    `background_command`: the same command to run as a tracked task), dangling operators and
 *    anything that does not parse.
 * 3. Each segment is unwrapped (`env`, `sudo`, `timeout`, `xargs`, `sh -c '…'`, `su -c`, …; see
 *    wrappers.ts) and judged: deny rules → the built-in floor (builtins.ts: protected paths, raw
 *    devices, killing every process, fork bombs — always denied) → built-in confirmations
 *    (holdfast's own config, shell hooks, risky `git -c`, the prompt hook, power actions, code run
 *    by expansions such as `a[$(cmd)]` or `${X@P}`) → confirm → allow → built-in read-only
 *    list → `default`. A command whose name is only known at run time (`$CMD`), or a command
 *    string that is (`sh -c "$X"`, `curl … | sh`), needs confirmation; so does setting an
 *    environment variable that makes programs run other code (environment.ts: `PATH`, `LD_*`,
 *    `GIT_PAGER`, `PROMPT_COMMAND`, … — inline, exported, or in the call's `env`). Every built-in
 *    "needs confirmation" is a deny under `default: deny`.
 * 4. The strictest segment decides: any deny refuses the whole line before any of it runs; any
 *    confirm asks once for the whole line.
 *
 * Cost: one parse (tens of µs) per call; rules are compiled once per config object.
 */

export type PolicyDecision = 'allow' | 'confirm' | 'deny';

/** One judged simple command. */
export interface PolicySegment {
  /** The command as written (for argv mode, shell-quoted for display). */
  text: string;
  /** The command actually run, by name (`rm` for `sudo env /bin/rm …`); null when none is known. */
  command: string | null;
  /** Its words after quote removal (`$X`-style parts as written). */
  argv: string[];
  /** Wrappers looked through, outer first (`sudo`, `sh -c`, …). */
  via: string[];
  /** Redirections, as `op target` (`> out.txt`, `2>&1`). */
  redirects: string[];
  decision: PolicyDecision;
  /**
   * What decided: `deny: rm -rf /`, `confirm: git push`, `allow: npm test`, `read-only: git status`,
   * `default`, `run-time`, `environment: NAME`, `built-in: protected path|raw device|kill all|
   * fork bomb|holdfast config|holdfast|shell hook|git config`.
   */
  rule: string;
  reason: string;
}

/** The verdict on a whole command line. */
export interface PolicyVerdict {
  decision: PolicyDecision;
  /** One sentence for the model and the user. */
  reason: string;
  segments: PolicySegment[];
  /** Constructs refused whatever the rules say (non-empty ⇒ `deny`). */
  refusals: Refusal[];
  /** For a refused lone `&`: the command without it, to run with `background: true`. */
  background_command?: string;
}

type RulesConfig = CommandRules;

/** What {@link evaluateCommand} judges: shell text or an argv vector, with the call's env and cwd. */
export interface CommandInput {
  /** Shell text (`execute command`, a task's command, `verify_command`). */
  command?: string;
  /** An exact argument vector (`execute argv`, no shell). */
  argv?: readonly string[];
  /** The call's `env` object: judged as {@link evaluateEnvironment} does, folded into the verdict. */
  env?: Readonly<Record<string, string>> | null;
  /**
   * The absolute directory the command starts in, when known (the call's `cwd`, else the
   * session's current directory). Relative paths are then judged too (`rm -rf ../..`); without it
   * they are only compared as written. A literal `cd` earlier in the line moves it.
   */
  cwd?: string | null;
  /**
   * It runs in the session's own shell (an `execute` foreground run), not a shell of its own
   * (a background task, `verify_command`): then `exit`, `logout` and `exec` there end the session.
   */
  sessionShell?: boolean;
}

/** Nesting of command strings (`sh -c "sh -c '…'"`) judged at most. */
const MAX_SCRIPT_DEPTH = 4;
const RANK: Record<PolicyDecision, number> = { allow: 0, confirm: 1, deny: 2 };

/**
 * Judges a command line (`command`, shell text) or an argument vector (`argv`, no shell), with the
 * call's environment and working directory. Exactly one of `command`/`argv` should be given; with
 * neither, the verdict is a refusal (`empty`). Refused outright: a command containing NUL or
 * another control character but tab and newline, an argv element containing NUL, an env name that
 * is not a variable name or a value with a control character (kinds `control_character`,
 * `environment`).
 * @throws HoldfastError `BAD_REQUEST` when a configured rule is not a plain command.
 */
export function evaluateCommand(input: CommandInput, rules: RulesConfig): PolicyVerdict {
  const compiled = compileRules(rules);
  const acc: Accumulator = { segments: [], refusals: [], cwd: input.cwd && input.cwd.startsWith('/') ? canonicalPath(input.cwd, null) : null, sessionShell: input.sessionShell === true };
  let backgroundCommand: string | null = null;
  if (input.argv !== undefined) {
    const words = input.argv.map(literalWord);
    const nul = input.argv.findIndex((a) => a.includes('\0'));
    if (words.length === 0) acc.refusals.push(refusal('empty', ''));
    else if (nul >= 0) acc.refusals.push(refusal('control_character', JSON.stringify(input.argv[nul]), `argv[${nul}] contains U+0000 NUL, which ends an argument early`));
    else judgeCommand({ text: input.argv.map(shellQuote).join(' '), words, assigns: [], redirects: [], pipedInput: false, dirs: dirsAt(acc.cwd) }, compiled, [], 0, acc, false);
  } else {
    const text = input.command ?? '';
    const bad = findUnsafeCharacter(text);
    if (bad) acc.refusals.push(refusal('control_character', JSON.stringify(text.slice(Math.max(0, bad.index - 20), bad.index + 20)), `${bad.name} at character ${bad.index + 1}`));
    else backgroundCommand = judgeScript(text, compiled, [], 0, acc, dirsAt(acc.cwd), acc.sessionShell);
  }
  if (input.env) judgeEnvironment(input.env, compiled, acc);
  return verdict(acc, backgroundCommand);
}

interface Accumulator {
  segments: PolicySegment[];
  refusals: Refusal[];
  /** The call's working directory, when given (absolute, canonical). */
  cwd: string | null;
  /** See {@link CommandInput.sessionShell}. */
  sessionShell: boolean;
}

/** A built-in "needs confirmation": confirm, or deny under `default: deny`. */
function hold(rules: CompiledRules): PolicyDecision {
  return rules.default === 'deny' ? 'deny' : 'confirm';
}

function judgeEnvironment(env: Readonly<Record<string, string>>, rules: CompiledRules, acc: Accumulator): void {
  for (const v of evaluateEnvironment(env, rules).variables) {
    if (v.rule === 'environment: invalid') {
      acc.refusals.push(refusal('environment', JSON.stringify(v.name), v.reason));
      continue;
    }
    acc.segments.push({ text: `env ${v.name}=…`, command: null, argv: [], via: ['env argument'], redirects: [], decision: v.decision, rule: v.rule, reason: v.reason });
  }
}

/**
 * Command strings run by the shell that reads them, not a child: `eval`, a `trap` action, an
 * alias value, `source /dev/stdin <<< …` (wrappers.ts names them so). Their `exit` ends that shell.
 */
const SAME_SHELL_SCRIPTS = new Set(['eval', 'trap', 'alias', 'source <<', '. <<']);

/**
 * Judges a command string that starts in `dirs` (the call's directory, or where the wrapper that
 * runs it runs). Each command is judged where the scan says it may run (script-scan.ts follows
 * `cd`/`pushd`/`popd` through `&&`, `;`, subshells and branches). `inSession`: the string runs in
 * the session's own shell (the line itself, or `eval`/`trap`/`source` of it there).
 */
function judgeScript(text: string, rules: CompiledRules, via: string[], depth: number, acc: Accumulator, dirs: Dirs, inSession: boolean): string | null {
  const scan = scanCommandLine(text, dirs);
  const where = via.length > 0 ? `inside ${via.join(' → ')}` : undefined;
  for (const r of scan.refusals) acc.refusals.push(where ? { ...r, message: `${r.message} (${where})` } : r);
  for (const cmd of scan.commands) judgeCommand(cmd, rules, via, depth, acc, inSession);
  for (const p of scan.paramAssigns) {
    const why = environmentRisk(p.name, null);
    if (why) acc.segments.push({ text: p.text, command: null, argv: [], via, redirects: [], decision: hold(rules), rule: `environment: ${p.name}`, reason: `${p.text} assigns ${p.name}, which ${why}` });
  }
  for (const cmd of scan.commands) {
    const why = sourcesUnjudgedScript(cmd, scan.commands, cmd.dirs?.known[0] ?? acc.cwd);
    if (why) acc.segments.push({ text: cmd.text, command: 'source', argv: cmd.words.map(shownWord), via, redirects: [], decision: hold(rules), rule: PROMPT_HOOK, reason: why });
  }
  for (const f of scan.functionDefs) {
    const why = hookFunctionName(f.name);
    if (why) acc.segments.push({ text: f.text, command: null, argv: [], via, redirects: [], decision: hold(rules), rule: PROMPT_HOOK, reason: `defining ${f.name}: ${why}` });
  }
  for (const c of scan.runTimeCode) {
    acc.segments.push({ text: c.text, command: null, argv: [], via, redirects: [], decision: hold(rules), rule: RUN_TIME_CODE, reason: `${c.text} is ${c.why}, code no rule judged` });
  }
  return via.length === 0 ? scan.backgroundCommand ?? (scan.backgrounded.length > 0 ? scan.backgrounded[0]! : null) : null;
}

/**
 * The working directories a command is judged in: every folder it may run in, plus `null`
 * (relative paths compared as written) when none was given or the folder is only known at run
 * time (docs/command-policy.md "The working directory").
 */
function judgedDirectories(dirs: Dirs | undefined): (string | null)[] {
  const d = dirs ?? NO_DIRS;
  const out: (string | null)[] = [...d.known];
  if (out.length === 0 || d.asWritten || d.unknown) out.push(null);
  return out;
}

/**
 * Where a command runs after its wrappers moved it (`env -C DIR`, `sudo -D DIR`): each literal
 * folder applied in turn; a run-time one makes it unknown. The folders before count too, so a
 * wrapper that fails to change directory is covered.
 */
function wrapperDirectories(dirs: Dirs, chdirs: readonly ShellWord[]): Dirs {
  let d = dirs;
  for (const w of chdirs) d = w.dynamic || w.glob ? unionDirs(d, UNKNOWN_DIRS) : unionDirs(d, changeDir(d, w.text));
  return d;
}

/**
 * `exit`, `logout` or `exec` run by the session's own shell (not in a subshell, pipeline or a
 * command string of another shell; in a function body defined here, since calling it later does
 * the same): the shell ends or is replaced, and with it the session —
 * its folder, environment and jobs (DESIGN §5; a session whose shell exited is over). Returns why,
 * or null.
 */
function endsSessionShell(cmd: SimpleCommand): string | null {
  if (!cmd.scope || cmd.scope.forked) return null;
  // `builtin exit`, `command exit`, `builtin exec …` run the same builtin in the same shell (issue 18).
  let k = 0;
  while (k < cmd.words.length && !cmd.words[k]!.dynamic && IN_SHELL_WRAPPERS.has(commandName(cmd.words[k]!))) {
    const wrapper = commandName(cmd.words[k]!);
    k++;
    for (; k < cmd.words.length && /^-/.test(cmd.words[k]!.text); k++) {
      if (cmd.words[k]!.text === '--') {
        k++;
        break;
      }
      if (wrapper === 'command' && /^-[pvV]*[vV]/.test(cmd.words[k]!.text)) return null; // `command -v exit` only looks it up
    }
  }
  const head = cmd.words[k];
  if (!head || head.dynamic) return null;
  const name = commandName(head);
  if (name === 'suspend' || (name === 'ulimit' && cmd.words.slice(k + 1).some((w) => w.dynamic || !w.text.startsWith('-')))) {
    // `suspend -f` stops the shell for good (nobody can send it SIGCONT); `ulimit -t 1`, `ulimit -v …`
    // limit it until it is killed or cannot start a command (a subshell keeps its limits to itself).
    return `${cmd.text} ${name === 'suspend' ? 'stops' : 'limits'} the session's own shell, which can stop or end the session; run it in a subshell ( … ) instead`;
  }
  if (name !== 'exit' && name !== 'logout' && name !== 'exec') return null;
  // A function body runs in this shell when it is called, perhaps in a later call.
  const fn = cmd.scope.functions[cmd.scope.functions.length - 1];
  const when = fn !== undefined ? `called, function ${fn || '(unnamed)'} runs ${name}, which` : name;
  if (name === 'exec') return `${fn !== undefined ? `when ${when}` : 'exec'} replaces or rewires the session's shell (${cmd.text}); when it ends, the session ends, and redirecting its output hides every later result`;
  return `${fn !== undefined ? `when ${when}` : name} ends the session's shell, and the session with it (its folder, environment and background jobs); run it in a subshell or open a new session instead`;
}

/** Wrappers that run their command in the same shell (a builtin stays a builtin). */
const IN_SHELL_WRAPPERS = new Set(['builtin', 'command']);

/** Words naming the session's own shell or its process group (`$$`, `${BASHPID}`, `0`, `-$$`). */
const OWN_SHELL_PID = /^-?(\$\$|\$\{\$\}|\$BASHPID|\$\{BASHPID\}|0+)$/;
/** Words naming the shell's parent: the session's guardian (`$PPID`, `-$PPID`). */
const PARENT_PID = /^-?(\$PPID|\$\{PPID\})$/;

/**
 * `kill` (the builtin or the program, behind any wrapper) of the session's shell, its process
 * group or its parent — the guardian — with a signal other than 0 (issue 18: `kill -9 $$` and
 * `kill -9 0` ended the session without the confirmation `exit` needs). `$$`, `$BASHPID` and `0`
 * count when the line runs in the session's own shell; `$PPID` always (it is the guardian in a
 * background task too). Returns why, or null.
 */
function signalsSessionShell(u: Unwrapped, sessionShell: boolean): string | null {
  const view = [...u.views].reverse().find((v) => v.role === 'command');
  const head = view?.words[0];
  if (!view || !head || head.dynamic || commandName(head) !== 'kill') return null;
  const args = view.words.slice(1);
  // The first option is the signal (`-9`, `-KILL`, `-s KILL`); after it, or after `--`, pids.
  let signal = 'TERM';
  let i = 0;
  const first = args[0]?.text;
  if (first === '-l' || first === '-L' || first === '--list' || first === '--table') return null;
  if (first === '-s' || first === '-n' || first === '--signal') {
    signal = args[1]?.text ?? '';
    i = 2;
  } else if (first !== undefined && first.startsWith('-') && first.length > 1 && first !== '--') {
    signal = first.slice(1);
    i = 1;
  }
  if (args[i]?.text === '--') i++;
  if (/^(SIG)?0$/i.test(signal)) return null;
  for (const w of args.slice(i)) {
    const written = w.source.replace(/^["']|["']$/g, '');
    // `kill -9 $(( $$ ))`, `kill "$(echo $$)"`: a pid computed from the shell's own or its parent's.
    if (w.dynamic && /\$\{?PPID\b/.test(written)) return `${view.words.map(shownWord).join(' ')} signals a pid computed from $PPID, the session's guardian`;
    if (sessionShell && w.dynamic && /\$\$|\$\{\$\}|\$\{?BASHPID\b/.test(written)) return `${view.words.map(shownWord).join(' ')} signals a pid computed from the session's own shell, which ends the session`;
    if (PARENT_PID.test(written)) return `${view.words.map(shownWord).join(' ')} signals the session's guardian (the shell's parent), which ends the session`;
    if (sessionShell && OWN_SHELL_PID.test(written)) return `${view.words.map(shownWord).join(' ')} signals the session's own shell${/0/.test(written) ? ' and its process group' : ''}, which ends the session (its folder, environment and background jobs)`;
  }
  return null;
}

/** The worse of two judgements (deny > confirm > allow; the first wins a tie). */
function worse<T extends { decision: PolicyDecision }>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[b.decision] > RANK[a.decision] ? b : a;
}

function judgeCommand(cmd: SimpleCommand, rules: CompiledRules, via: string[], depth: number, acc: Accumulator, inSession: boolean): void {
  const u = unwrap(cmd);
  const chain = [...via, ...u.via];
  let best: { decision: PolicyDecision; rule: string; reason: string } | null = null;
  const raise = (decision: PolicyDecision, rule: string, reason: string): void => {
    if (best === null || RANK[decision] > RANK[best.decision]) best = { decision, rule, reason };
  };
  let judgedCommand = false;
  const cwds = judgedDirectories(wrapperDirectories(cmd.dirs ?? NO_DIRS, u.chdirs));
  const judgeAll = (view: CommandView): ReturnType<typeof judgeView> => cwds.reduce<ReturnType<typeof judgeView>>((w, cwd) => worse(w, judgeView(view, cmd, rules, cwd)), null);
  for (const view of u.views) {
    const v = judgeAll(view);
    if (view.role === 'command') {
      for (const name of variablesAssignedBy(view, cmd)) {
        const why = environmentRisk(name, null);
        if (why) raise(hold(rules), `environment: ${name}`, `${commandName(view.words[0]!)} assigns ${name}, which ${why}`);
      }
    }
    if (!v) continue;
    if (view.role === 'command') judgedCommand = true;
    raise(v.decision, v.rule, v.reason);
  }
  if (!judgedCommand && u.views.length > 0 && u.scripts.length === 0 && !u.unjudgeable) {
    // Only wrappers (e.g. `env`, `nohup` with nothing after): the wrapper itself is the command.
    const last = u.views[u.views.length - 1]!;
    const v = judgeAll({ ...last, role: 'command' });
    if (v) raise(v.decision, v.rule, v.reason);
  }
  if (u.unjudgeable) raise(hold(rules), 'run-time', `${u.unjudgeable}, so it cannot be judged before it runs`);
  const ends = (inSession ? endsSessionShell(cmd) : null) ?? signalsSessionShell(u, acc.sessionShell);
  if (ends) raise(hold(rules), 'built-in: ends the session', ends);
  for (const a of [...cmd.assigns, ...u.assigns]) {
    const why = environmentRisk(a.name, a.value ?? literalWord(''), a.append === true);
    if (why) raise(hold(rules), `environment: ${a.name}`, `setting ${a.name} ${why}`);
  }
  const finalView = [...u.views].reverse().find((v) => v.role === 'command') ?? u.views[u.views.length - 1];
  const decided: { decision: PolicyDecision; rule: string; reason: string } = best ?? (u.scripts.length > 0
    ? { decision: 'allow', rule: 'looked through', reason: `the command string run by ${u.scripts.map((x) => x.via).join(', ')} is judged on its own` }
    : { decision: 'allow', rule: 'assignment', reason: 'only sets shell variables' });
  acc.segments.push({
    text: cmd.text,
    command: finalView && !finalView.words[0]!.dynamic ? commandName(finalView.words[0]!) : null,
    argv: (finalView?.words ?? cmd.words).map(shownWord),
    via: chain,
    redirects: cmd.redirects.map((r) => `${r.fd ?? ''}${r.op}${r.op === '<<' || r.op === '<<-' ? '' : ' '}${r.target?.source ?? ''}`.trim()),
    decision: decided.decision,
    rule: decided.rule,
    reason: decided.reason,
  });
  for (const s of u.scripts) {
    if (depth + 1 > MAX_SCRIPT_DEPTH) {
      acc.refusals.push(refusal('too_deep', s.text));
      continue;
    }
    const sameShell = inSession && cmd.scope !== undefined && !cmd.scope.forked && SAME_SHELL_SCRIPTS.has(s.via);
    judgeScript(s.text, rules, [...chain.filter((x) => x !== s.via), s.via], depth + 1, acc, wrapperDirectories(cmd.dirs ?? NO_DIRS, u.chdirs), sameShell);
  }
}

/**
 * Judges one layer: wrappers against deny/confirm only, the command run against the whole chain
 * (deny → built-in floor → built-in confirmations → confirm → allow → read-only → default; a
 * matching deny rule is reported before the floor, both refuse).
 */
function judgeView(view: CommandView, cmd: SimpleCommand, rules: CompiledRules, cwd: string | null): { decision: PolicyDecision; rule: string; reason: string } | null {
  const head = view.words[0]!;
  const shown = view.words.map(shownWord).join(' ');
  if (view.role === 'command' && head.dynamic) {
    return { decision: hold(rules), rule: 'run-time', reason: `the command name ${head.source} is only known at run time` };
  }
  const named = rulesFor(rules, head);
  let possibleDeny: string | null = null;
  for (const r of named.deny) {
    const m = matchLoose(r, view, cwd);
    if (m === 'match') return { decision: 'deny', rule: `deny: ${r.source}`, reason: `deny rule "${r.source}" matches ${shown}` };
    if (m === 'possible') possibleDeny ??= r.source;
  }
  // The built-in floor: denied whatever the rules say (a matching deny rule is named first).
  let held: { decision: PolicyDecision; rule: string; reason: string } | null = null;
  if (view.role === 'command') {
    const b = builtinFinding(view, cmd, cwd);
    if (b?.decision === 'deny') return b;
    if (b) held = { decision: hold(rules), rule: b.rule, reason: b.reason };
  }
  if (held?.decision === 'deny') return held;
  if (possibleDeny !== null) {
    return { decision: 'confirm', rule: `deny: ${possibleDeny}`, reason: `${shown} could become deny rule "${possibleDeny}" once its run-time arguments are known` };
  }
  if (held) return held;
  for (const r of named.confirm) {
    if (matchLoose(r, view, cwd) !== 'none') return { decision: 'confirm', rule: `confirm: ${r.source}`, reason: `confirm rule "${r.source}" matches ${shown}` };
  }
  if (view.role === 'wrapper') return null;
  for (const r of named.allow) {
    if (matchStrict(r, view)) return { decision: 'allow', rule: `allow: ${r.source}`, reason: `allow rule "${r.source}" matches ${shown}` };
  }
  const ro = readOnlyLabel(view, cmd.redirects);
  if (ro) return { decision: 'allow', rule: ro, reason: `${shown} only reads (${ro})` };
  return { decision: rules.default, rule: 'default', reason: `no rule matches ${shown}; the default is ${rules.default}` };
}

function verdict(acc: Accumulator, backgroundCommand: string | null): PolicyVerdict {
  const out: PolicyVerdict = { decision: 'allow', reason: '', segments: acc.segments, refusals: acc.refusals };
  if (acc.refusals.length > 0) {
    out.decision = 'deny';
    out.reason = `refused: ${acc.refusals.map((r) => `${r.message}: ${clip(r.text)}`).join('; ')}`;
    if (backgroundCommand !== null && acc.refusals.every((r) => r.kind === 'background')) out.background_command = backgroundCommand;
    return out;
  }
  const worst = acc.segments.reduce<PolicySegment | null>((w, s) => (w === null || RANK[s.decision] > RANK[w.decision] ? s : w), null);
  if (!worst) {
    out.reason = 'nothing to run';
    return out;
  }
  out.decision = worst.decision;
  const same = acc.segments.filter((s) => s.decision === worst.decision);
  const prefix = worst.decision === 'deny' ? 'denied' : worst.decision === 'confirm' ? 'needs confirmation' : 'allowed';
  out.reason = `${prefix}: ${[...new Set(same.map((s) => s.reason))].join('; ')}`;
  return out;
}

function clip(s: string): string {
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

/** Quotes a word for display as Bash would need it. */
export function shellQuote(s: string): string {
  return s !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
