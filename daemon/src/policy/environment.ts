import type { PolicyDecision } from './commands.js';
import type { CommandRules } from './rules.js';
import { findUnsafeCharacter } from './text-safety.js';

/**
 * Environment variables that make a program run other code, or change which program runs
 * (issue 5; docs/command-policy.md "Environment"). Setting one — through `execute`'s `env`
 * argument, inline (`GIT_PAGER='touch /x' git log`), with `export`/`declare`/`env`/`sudo`/
 * `systemd-run -E`, or by `read`, `printf -v`, `mapfile`, `getopts`, a nameref or `${NAME:=…}` —
 * needs confirmation, or is denied under `default: deny`: no rule can see the code it runs.
 *
 * Exceptions, because they cannot change what runs:
 * - `PATH` *appended to* (`PATH=$PATH:/opt/bin`, `PATH+=:/opt/bin`, or an `env` value that starts
 *   with the daemon's own `PATH` followed by `:`): a name already found keeps resolving where it
 *   did; only names that were not found gain a meaning, and those are judged by name anyway.
 * - pager and editor variables set to a plain, well-known program (`GIT_PAGER=cat`,
 *   `EDITOR=true`, `PAGER='less -R'`; {@link SAFE_PROGRAM_VALUES}).
 */

const RUNS = 'makes programs run code that no rule judged';
const WHICH = 'changes which program a command name runs';
const LOADS = 'makes programs load code from elsewhere';
const SHELL = 'makes the shell run code later, outside any judged command';
const CONFIG = 'changes which configuration programs read (configuration can name programs to run)';

/** Exact names → why setting them needs confirmation. */
const RISKY: Readonly<Record<string, string>> = {
  PATH: WHICH,
  EXECIGNORE: WHICH,
  BASH_ENV: SHELL,
  ENV: SHELL,
  PROMPT_COMMAND: SHELL,
  PS0: SHELL,
  PS1: SHELL,
  PS2: SHELL,
  PS3: SHELL,
  PS4: SHELL,
  SHELLOPTS: SHELL,
  BASHOPTS: SHELL,
  IFS: 'changes how the shell splits words, so commands are not what they look like',
  BASH_XTRACEFD: SHELL,
  HISTFILE: 'makes the shell write its history over a file of its choosing',
  INPUTRC: SHELL,
  BASH_LOADABLES_PATH: LOADS,
  SHELL: WHICH,
  HOME: CONFIG,
  ZDOTDIR: CONFIG,
  XDG_CONFIG_HOME: CONFIG,
  GCONV_PATH: LOADS,
  OPENSSL_CONF: LOADS,
  OPENSSL_ENGINES: LOADS,
  PAGER: RUNS,
  MANPAGER: RUNS,
  MANOPT: RUNS,
  SYSTEMD_PAGER: RUNS,
  LESS: RUNS,
  LESSOPEN: RUNS,
  LESSCLOSE: RUNS,
  LESSKEY: RUNS,
  LESSKEYIN: RUNS,
  EDITOR: RUNS,
  VISUAL: RUNS,
  SUDO_EDITOR: RUNS,
  FCEDIT: RUNS,
  BROWSER: RUNS,
  SSH_ASKPASS: RUNS,
  SUDO_ASKPASS: RUNS,
  GIT_PAGER: RUNS,
  GIT_EDITOR: RUNS,
  GIT_SEQUENCE_EDITOR: RUNS,
  GIT_EXTERNAL_DIFF: RUNS,
  GIT_SSH: RUNS,
  GIT_SSH_COMMAND: RUNS,
  GIT_ASKPASS: RUNS,
  GIT_PROXY_COMMAND: RUNS,
  GIT_EXEC_PATH: WHICH,
  GIT_TEMPLATE_DIR: RUNS,
  GIT_DIR: CONFIG,
  GIT_ALLOW_PROTOCOL: RUNS,
  PYTHONSTARTUP: LOADS,
  PYTHONPATH: LOADS,
  PYTHONHOME: LOADS,
  PYTHONUSERBASE: LOADS,
  PYTHONINSPECT: RUNS,
  NODE_OPTIONS: LOADS,
  NODE_PATH: LOADS,
  PERL5OPT: LOADS,
  PERL5LIB: LOADS,
  PERLLIB: LOADS,
  PERL5DB: LOADS,
  RUBYOPT: LOADS,
  RUBYLIB: LOADS,
  JAVA_TOOL_OPTIONS: LOADS,
  _JAVA_OPTIONS: LOADS,
  JDK_JAVA_OPTIONS: LOADS,
  CLASSPATH: LOADS,
  LUA_INIT: LOADS,
  LUA_PATH: LOADS,
  LUA_CPATH: LOADS,
  CDPATH: 'changes which folder a later cd goes to, so commands run where the policy does not expect',
  TAR_OPTIONS: RUNS,
  RSYNC_RSH: RUNS,
  RSYNC_CONNECT_PROG: RUNS,
  ZIPOPT: RUNS,
  RUSTC_WRAPPER: WHICH,
  RUSTC_WORKSPACE_WRAPPER: WHICH,
  RUSTC: WHICH,
  CARGO_BUILD_RUSTC_WRAPPER: WHICH,
};

/** Name prefixes → why (`LD_PRELOAD`, `GIT_CONFIG_COUNT`, …). `NPM_CONFIG_` is case-insensitive, as npm reads it. */
const RISKY_PREFIXES: readonly (readonly [string, string])[] = [
  ['LD_', LOADS],
  ['DYLD_', LOADS],
  ['GIT_CONFIG', CONFIG],
  ['BASH_FUNC_', SHELL],
  // holdfast's prompt hook (guardian/src/shell-integration.ts): its nonce, its sourced file.
  ['__hf', SHELL],
];

/** Pager and editor variables, and the plain values that keep them harmless. */
const PROGRAM_VARIABLES = new Set(['PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'EDITOR', 'VISUAL', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'SUDO_EDITOR', 'FCEDIT']);
export const SAFE_PROGRAM_VALUES: ReadonlySet<string> = new Set([
  '', 'cat', 'less', 'less -R', 'less -r', 'less -F', 'less -X', 'less -FR', 'less -RF', 'less -FX', 'less -FRX', 'less -RFX', 'less -FRSX', 'less -SR',
  'more', 'true', 'false', ':', 'head', 'tail', 'vi', 'vim', 'nvim', 'nano', 'emacs', 'code --wait',
]);
const SYSTEM_BIN_PREFIX = /^\/(usr\/(local\/)?)?bin\//;

/** A value as the policy knows it: literal text, or a shell word with its source (`$PATH:/x`). */
export type EnvValue = string | { text: string; dynamic: boolean; source: string } | null;

/** Is `name` on the list (ignoring the value)? Returns why, or null. */
export function riskyEnvironmentName(name: string): string | null {
  if (Object.prototype.hasOwnProperty.call(RISKY, name)) return RISKY[name]!;
  for (const [prefix, why] of RISKY_PREFIXES) if (name.startsWith(prefix)) return why;
  if (name.toUpperCase().startsWith('NPM_CONFIG_')) return CONFIG;
  return null;
}

/**
 * Why setting `name` to `value` needs confirmation (see the file comment), or null when it is
 * harmless. `append` is `NAME+=value`. A `value` of null means "unknown" (set by `read`, `printf
 * -v`…), which never counts as harmless.
 */
export function environmentRisk(name: string, value: EnvValue, append = false): string | null {
  const why = riskyEnvironmentName(name);
  if (why === null) return null;
  if (value === null) return why;
  if (name === 'PATH') {
    if (append) return null;
    if (typeof value === 'string') {
      const own = process.env.PATH;
      return own && (value === own || value.startsWith(`${own}:`)) ? null : why;
    }
    return /^"?(\$PATH|\$\{PATH\}):/.test(value.source) ? null : why;
  }
  if (PROGRAM_VARIABLES.has(name)) {
    const text = typeof value === 'string' ? value : value.dynamic ? null : value.text;
    if (text !== null && SAFE_PROGRAM_VALUES.has(text.trim().replace(/\s+/g, ' ').replace(SYSTEM_BIN_PREFIX, ''))) return null;
  }
  return why;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One judged variable of an environment. */
export interface EnvironmentVariableVerdict {
  name: string;
  decision: PolicyDecision;
  /** `environment: NAME` for a risky name; `environment: invalid` for a refused name or value. */
  rule: string;
  reason: string;
}

/** The verdict on an `execute` call's `env` object. */
export interface EnvironmentVerdict {
  /** The strictest of the variables' decisions (`allow` for an empty or harmless environment). */
  decision: PolicyDecision;
  /** One sentence for the model and the user. */
  reason: string;
  /** Only the variables that are not simply allowed. */
  variables: EnvironmentVariableVerdict[];
}

const RANK: Record<PolicyDecision, number> = { allow: 0, confirm: 1, deny: 2 };

/**
 * Judges the `env` argument of `execute` (issue 5): every name must be a shell variable name and
 * every value free of NUL and the control characters of text-safety.ts (the values are typed into
 * the terminal as `export NAME='value'`), else `deny`; a name on the list above needs confirmation
 * (`deny` under `default: deny`) unless its value is one of the harmless exceptions. Pure: reads
 * only `process.env.PATH` (for the appended-`PATH` exception).
 * @param env the call's environment (null/undefined/empty = nothing to judge → `allow`)
 * @param rules the effective command rules (only `default` is read)
 */
export function evaluateEnvironment(env: Readonly<Record<string, string>> | null | undefined, rules: Pick<CommandRules, 'default'>): EnvironmentVerdict {
  const variables: EnvironmentVariableVerdict[] = [];
  const hold: PolicyDecision = rules.default === 'deny' ? 'deny' : 'confirm';
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!NAME.test(name)) {
      variables.push({ name, decision: 'deny', rule: 'environment: invalid', reason: `${JSON.stringify(name)} is not a shell variable name` });
      continue;
    }
    if (typeof value !== 'string') {
      variables.push({ name, decision: 'deny', rule: 'environment: invalid', reason: `the value of ${name} is not a string` });
      continue;
    }
    const bad = findUnsafeCharacter(value);
    if (bad) {
      variables.push({ name, decision: 'deny', rule: 'environment: invalid', reason: `the value of ${name} contains ${bad.name}; only tab and newline are allowed among control characters` });
      continue;
    }
    const why = environmentRisk(name, value);
    if (why) variables.push({ name, decision: hold, rule: `environment: ${name}`, reason: `setting ${name} ${why}` });
  }
  const worst = variables.reduce<PolicyDecision>((w, v) => (RANK[v.decision] > RANK[w] ? v.decision : w), 'allow');
  const shown = variables.filter((v) => v.decision === worst);
  const prefix = worst === 'deny' ? 'denied' : worst === 'confirm' ? 'needs confirmation' : 'allowed';
  return { decision: worst, reason: shown.length === 0 ? 'allowed: no environment variable changes what runs' : `${prefix}: ${shown.map((v) => v.reason).join('; ')}`, variables };
}
