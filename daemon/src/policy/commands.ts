import { readOnlyLabel } from './read-only.js';
import { compileRules, matchLoose, matchStrict, type CommandRules, type CompiledRules } from './rules.js';

export type { CommandRules } from './rules.js';
import { refusal, scanCommandLine, type Refusal, type SimpleCommand } from './script-scan.js';
import { literalWord } from './shell-syntax.js';
import { commandName, unwrap, type CommandView } from './wrappers.js';

/**
 * The command policy (issue 5, docs/command-policy.md). Every command line `execute` runs — shell
 * text, an argv vector, a project task's command, `edit`'s `verify_command` — is judged here
 * before anything reaches a shell.
 *
 * 1. The line is parsed with a real shell parser (mvdan-sh) into simple commands ("segments"),
 *    split at `&&`, `||`, `;`, `|`, `|&`, newlines and inside compound commands; redirections
 *    belong to their segment.
 * 2. Always refused, whatever the rules: `$(…)`, backticks, `<(…)`/`>(…)`, a lone `&` or `coproc`
 *    (the verdict then carries `background_command`: the same command to run as a tracked task),
 *    unquoted here-documents, dangling operators and anything that does not parse.
 * 3. Each segment is unwrapped (`env`, `sudo`, `timeout`, `xargs`, `sh -c '…'`, …; see
 *    wrappers.ts) and judged deny → confirm → allow → built-in read-only list → `default`. A
 *    command whose name is only known at run time (`$CMD`), or a command string that is
 *    (`sh -c "$X"`, `curl … | sh`), needs confirmation (or is denied when `default: deny`).
 *    Assigning a shell hook (`PROMPT_COMMAND`, `PS1`…`PS4`, `BASH_ENV`, `ENV`, `LD_PRELOAD`,
 *    `LD_LIBRARY_PATH`) needs confirmation: it runs later, outside any judged command.
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
  /** What decided: `deny: rm -rf /`, `confirm: git push`, `allow: npm test`, `read-only: git status`, `default`, `run-time`, `shell hook`. */
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

/** Nesting of command strings (`sh -c "sh -c '…'"`) judged at most. */
const MAX_SCRIPT_DEPTH = 4;
const SHELL_HOOK_VARIABLES = new Set(['PROMPT_COMMAND', 'PS0', 'PS1', 'PS2', 'PS3', 'PS4', 'BASH_ENV', 'ENV', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT']);
const RANK: Record<PolicyDecision, number> = { allow: 0, confirm: 1, deny: 2 };

/**
 * Judges a command line (`command`, shell text) or an argument vector (`argv`, no shell). Exactly
 * one should be given; with neither, the verdict is a refusal (`empty`).
 * @throws HoldfastError `BAD_REQUEST` when a configured rule is not a plain command.
 */
export function evaluateCommand(input: { command?: string; argv?: string[] }, rules: RulesConfig): PolicyVerdict {
  const compiled = compileRules(rules);
  const acc: Accumulator = { segments: [], refusals: [] };
  let backgroundCommand: string | null = null;
  if (input.argv !== undefined) {
    const words = input.argv.map(literalWord);
    if (words.length === 0) acc.refusals.push(refusal('empty', ''));
    else judgeCommand({ text: input.argv.map(shellQuote).join(' '), words, assigns: [], redirects: [], pipedInput: false }, compiled, [], 0, acc);
  } else {
    backgroundCommand = judgeScript(input.command ?? '', compiled, [], 0, acc);
  }
  return verdict(acc, backgroundCommand);
}

interface Accumulator {
  segments: PolicySegment[];
  refusals: Refusal[];
}

function judgeScript(text: string, rules: CompiledRules, via: string[], depth: number, acc: Accumulator): string | null {
  const scan = scanCommandLine(text);
  const where = via.length > 0 ? `inside ${via.join(' → ')}` : undefined;
  for (const r of scan.refusals) acc.refusals.push(where ? { ...r, message: `${r.message} (${where})` } : r);
  for (const cmd of scan.commands) judgeCommand(cmd, rules, via, depth, acc);
  return via.length === 0 ? scan.backgroundCommand ?? (scan.backgrounded.length > 0 ? scan.backgrounded[0]! : null) : null;
}

function judgeCommand(cmd: SimpleCommand, rules: CompiledRules, via: string[], depth: number, acc: Accumulator): void {
  const u = unwrap(cmd);
  const chain = [...via, ...u.via];
  let best: { decision: PolicyDecision; rule: string; reason: string } | null = null;
  const raise = (decision: PolicyDecision, rule: string, reason: string): void => {
    if (best === null || RANK[decision] > RANK[best.decision]) best = { decision, rule, reason };
  };
  let judgedCommand = false;
  for (const view of u.views) {
    const v = judgeView(view, cmd, rules);
    if (!v) continue;
    if (view.role === 'command') judgedCommand = true;
    raise(v.decision, v.rule, v.reason);
  }
  if (!judgedCommand && u.views.length > 0 && u.scripts.length === 0 && !u.unjudgeable) {
    // Only wrappers (e.g. `env`, `nohup` with nothing after): the wrapper itself is the command.
    const last = u.views[u.views.length - 1]!;
    const v = judgeView({ ...last, role: 'command' }, cmd, rules);
    if (v) raise(v.decision, v.rule, v.reason);
  }
  if (u.unjudgeable) {
    const d: PolicyDecision = rules.default === 'deny' ? 'deny' : 'confirm';
    raise(d, 'run-time', `${u.unjudgeable}, so it cannot be judged before it runs`);
  }
  for (const a of [...cmd.assigns, ...u.assigns]) {
    if (SHELL_HOOK_VARIABLES.has(a.name)) raise('confirm', 'shell hook', `${a.name} makes the shell run code later, outside any judged command`);
  }
  const finalView = [...u.views].reverse().find((v) => v.role === 'command') ?? u.views[u.views.length - 1];
  const decided: { decision: PolicyDecision; rule: string; reason: string } = best ?? (u.scripts.length > 0
    ? { decision: 'allow', rule: 'looked through', reason: `the command string run by ${u.scripts.map((x) => x.via).join(', ')} is judged on its own` }
    : { decision: 'allow', rule: 'assignment', reason: 'only sets shell variables' });
  acc.segments.push({
    text: cmd.text,
    command: finalView && !finalView.words[0]!.dynamic ? commandName(finalView.words[0]!) : null,
    argv: (finalView?.words ?? cmd.words).map((w) => (w.dynamic ? w.source : w.text)),
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
    judgeScript(s.text, rules, [...chain.filter((x) => x !== s.via), s.via], depth + 1, acc);
  }
}

/** Judges one layer: wrappers against deny/confirm only, the command run against the whole chain. */
function judgeView(view: CommandView, cmd: SimpleCommand, rules: CompiledRules): { decision: PolicyDecision; rule: string; reason: string } | null {
  const head = view.words[0]!;
  const shown = view.words.map((w) => (w.dynamic ? w.source : w.text)).join(' ');
  if (view.role === 'command' && head.dynamic) {
    return { decision: rules.default === 'deny' ? 'deny' : 'confirm', rule: 'run-time', reason: `the command name ${head.source} is only known at run time` };
  }
  let possibleDeny: string | null = null;
  for (const r of rules.deny) {
    const m = matchLoose(r, view);
    if (m === 'match') return { decision: 'deny', rule: `deny: ${r.source}`, reason: `deny rule "${r.source}" matches ${shown}` };
    if (m === 'possible') possibleDeny ??= r.source;
  }
  if (possibleDeny !== null) {
    return { decision: 'confirm', rule: `deny: ${possibleDeny}`, reason: `${shown} could become deny rule "${possibleDeny}" once its run-time arguments are known` };
  }
  for (const r of rules.confirm) {
    if (matchLoose(r, view) !== 'none') return { decision: 'confirm', rule: `confirm: ${r.source}`, reason: `confirm rule "${r.source}" matches ${shown}` };
  }
  if (view.role === 'wrapper') return null;
  for (const r of rules.allow) {
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
