import { posix } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import type { HoldfastConfig } from '@holdfast/shared/config';
import { scanCommandLine } from './script-scan.js';
import type { ShellWord } from './shell-syntax.js';
import { commandName, type CommandView } from './wrappers.js';

/**
 * Command rules (`security.commands.deny|confirm|allow` in config.yaml; docs/command-policy.md).
 *
 * A rule is written like a command: a name, then leading arguments — `git push`, `rm -rf /`,
 * `docker`, `mkfs.*`, `npm run deploy*`. It is read with the same shell parser as commands, so
 * quotes work (`git commit -m 'x y'`). Unquoted `*`, `?` and `[…]` are globs within one word
 * (`*` also matches `/`). The name matches the command's last path component (`/usr/bin/sudo` is
 * `sudo`) unless the rule's name contains a `/` itself.
 *
 * - **deny and confirm rules match loosely**, so they are hard to dodge: every argument of the
 *   rule must appear in the command, in order but not necessarily adjacent; a short-option
 *   cluster `-rf` is satisfied by the letters in any clustering (`-r -f`, `-fr`); a `--long`
 *   option anywhere before `--`; path arguments also compare normalised (`//`, `/tmp/..` are `/`).
 *   When only an argument known at run time (`$X`, a glob, `xargs` input) could complete the
 *   match, the result is `possible`: a deny becomes a confirmation.
 * - **allow rules match strictly**, so they are hard to stretch: the command's first arguments
 *   must be exactly the rule's (globs allowed), with nothing known only at run time among them;
 *   more arguments may follow.
 */

export type RuleKind = 'deny' | 'confirm' | 'allow';
/** Result of matching one rule: certain, only possible (run-time words), or not at all. */
export type MatchResult = 'match' | 'possible' | 'none';

interface Pattern {
  source: string;
  literal: string | null;
  re: RegExp | null;
}

type RuleToken = { t: 'flags'; letters: string; source: string } | { t: 'long'; name: string; value: Pattern | null; source: string } | { t: 'word'; p: Pattern };

export interface CompiledRule {
  kind: RuleKind;
  /** The rule as written in config. */
  source: string;
  name: Pattern;
  nameHasSlash: boolean;
  tokens: RuleToken[];
}

export interface CompiledRules {
  deny: CompiledRule[];
  confirm: CompiledRule[];
  allow: CompiledRule[];
  default: RuleKind;
}

/** The rule lists of `security.commands` (any object with these four keys, e.g. the config's own). */
export type CommandRules = Pick<HoldfastConfig['security']['commands'], 'default' | 'deny' | 'confirm' | 'allow'>;
type RulesConfig = CommandRules;
const cache = new WeakMap<RulesConfig, CompiledRules>();

/**
 * Compiles the rule lists of a config (cached per config object: a reloaded config compiles once).
 * @throws HoldfastError `BAD_REQUEST` naming the rule that is not a plain command.
 */
export function compileRules(rules: RulesConfig): CompiledRules {
  let c = cache.get(rules);
  if (!c) {
    c = {
      deny: rules.deny.map((r, i) => compileRule('deny', r, i)),
      confirm: rules.confirm.map((r, i) => compileRule('confirm', r, i)),
      allow: rules.allow.map((r, i) => compileRule('allow', r, i)),
      default: rules.default,
    };
    cache.set(rules, c);
  }
  return c;
}

/** Compiles one rule. @throws HoldfastError `BAD_REQUEST` when it is not one plain command. */
export function compileRule(kind: RuleKind, source: string, index = 0): CompiledRule {
  const bad = (why: string): never => {
    throw new HoldfastError('BAD_REQUEST', `security.commands.${kind}[${index}] "${source}": ${why}; write a command name and leading arguments, e.g. "git push"`);
  };
  const scan = scanCommandLine(source);
  if (scan.refusals.length > 0) bad(scan.refusals[0]!.message);
  if (scan.commands.length !== 1) bad('a rule is one command, without ;, &&, || or |');
  const cmd = scan.commands[0]!;
  if (cmd.words.length === 0 || cmd.redirects.length > 0 || cmd.assigns.length > 0) bad('a rule is a command name and arguments only');
  if (cmd.words.some((w) => w.dynamic)) bad('a rule cannot contain $variables or brace expansions');
  const [head, ...args] = cmd.words;
  return {
    kind,
    source,
    name: pattern(head!),
    nameHasSlash: head!.text.includes('/'),
    tokens: args.map(token),
  };
}

function token(w: ShellWord): RuleToken {
  const t = w.text;
  if (!w.glob && /^-[A-Za-z0-9]+$/.test(t)) return { t: 'flags', letters: t.slice(1), source: t };
  if (t.startsWith('--') && t.length > 2) {
    const eq = t.indexOf('=');
    if (eq < 0) return { t: 'long', name: t.slice(2), value: null, source: t };
    return { t: 'long', name: t.slice(2, eq), value: pattern({ ...w, text: t.slice(eq + 1) }), source: t };
  }
  return { t: 'word', p: pattern(w) };
}

function pattern(w: ShellWord): Pattern {
  return w.glob ? { source: w.text, literal: null, re: globToRegExp(w.text) } : { source: w.text, literal: w.text, re: null };
}

/** A shell glob (`*`, `?`, `[…]`, `[!…]`) as an anchored regular expression; `*` also matches `/`. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

function test(p: Pattern, s: string): boolean {
  return p.literal !== null ? p.literal === s : p.re!.test(s);
}

/** The forms an argument is compared in: as written and, for paths, normalised. */
function forms(text: string): string[] {
  if (!text.includes('/')) return [text];
  let n = posix.normalize(text);
  if (n.length > 1 && n.endsWith('/')) n = n.slice(0, -1);
  return n === text ? [text] : [text, n];
}

/** Does a rule's name match the view's command name? (A dynamic name never matches.) */
export function nameMatches(rule: CompiledRule, head: ShellWord): boolean {
  if (head.dynamic) return false;
  return test(rule.name, rule.nameHasSlash ? head.text : commandName(head));
}

interface Analysed {
  short: Set<string>;
  longs: { name: string; value: string | null }[];
  positionals: ShellWord[];
  /** Some argument is known only at run time (could be an option or a positional). */
  runtime: boolean;
}

function analyse(view: CommandView): Analysed {
  const a: Analysed = { short: new Set(), longs: [], positionals: [], runtime: view.openArgs };
  let options = true;
  for (const w of view.words.slice(1)) {
    if (w.dynamic) {
      a.runtime = true;
      a.positionals.push(w);
      continue;
    }
    const t = w.text;
    if (options && t === '--') {
      options = false;
      continue;
    }
    if (options && t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      a.longs.push(eq < 0 ? { name: t.slice(2), value: null } : { name: t.slice(2, eq), value: t.slice(eq + 1) });
      continue;
    }
    if (options && /^-[A-Za-z0-9]+$/.test(t)) {
      for (const l of t.slice(1)) a.short.add(l);
      continue;
    }
    a.positionals.push(w);
  }
  return a;
}

/** Could this argument be `text` at run time? `certain` when it is exactly so now. */
function argMatches(arg: ShellWord, p: Pattern): 'certain' | 'possible' | 'no' {
  if (arg.dynamic) return 'possible';
  if (arg.glob && p.literal === arg.text) return 'certain'; // the rule names this very pattern
  if (forms(arg.text).some((f) => test(p, f))) return arg.glob ? 'possible' : 'certain';
  if (arg.glob) {
    if (p.literal === null) return 'possible';
    return forms(p.literal).some((f) => globToRegExp(arg.text).test(f)) ? 'possible' : 'no';
  }
  return 'no';
}

/** Matches a deny/confirm rule loosely against a view (see the file comment). */
export function matchLoose(rule: CompiledRule, view: CommandView): MatchResult {
  const head = view.words[0];
  if (!head || !nameMatches(rule, head)) return 'none';
  const a = analyse(view);
  let possible = false;
  for (const tok of rule.tokens) {
    if (tok.t === 'flags') {
      if ([...tok.letters].every((l) => a.short.has(l))) continue;
      if (!a.runtime) return 'none';
      possible = true;
    } else if (tok.t === 'long') {
      if (a.longs.some((l) => l.name === tok.name && (tok.value === null || (l.value !== null && test(tok.value, l.value))))) continue;
      if (!a.runtime) return 'none';
      possible = true;
    }
  }
  const words = rule.tokens.filter((t): t is Extract<RuleToken, { t: 'word' }> => t.t === 'word');
  if (words.length === 0) return possible ? 'possible' : 'match';
  // Certain pass: static arguments only, in order.
  let at = 0;
  let certain = true;
  for (const tok of words) {
    while (at < a.positionals.length && argMatches(a.positionals[at]!, tok.p) !== 'certain') at++;
    if (at >= a.positionals.length) {
      certain = false;
      break;
    }
    at++;
  }
  if (certain) return possible ? 'possible' : 'match';
  // Possible pass: run-time arguments may stand for any rule word; open arguments may add them.
  at = 0;
  for (const tok of words) {
    while (at < a.positionals.length && argMatches(a.positionals[at]!, tok.p) === 'no') at++;
    if (at >= a.positionals.length) return view.openArgs ? 'possible' : 'none';
    at++;
  }
  return 'possible';
}

/** Matches an allow rule strictly (see the file comment). */
export function matchStrict(rule: CompiledRule, view: CommandView): boolean {
  const head = view.words[0];
  if (!head || !nameMatches(rule, head)) return false;
  const args = view.words.slice(1);
  if (args.length < rule.tokens.length) return false;
  return rule.tokens.every((tok, i) => {
    const arg = args[i]!;
    if (arg.dynamic || arg.glob) return false;
    if (tok.t === 'word') return test(tok.p, arg.text);
    if (tok.t === 'long' && tok.value !== null) {
      const eq = arg.text.indexOf('=');
      return eq > 0 && arg.text.slice(0, eq) === `--${tok.name}` && test(tok.value, arg.text.slice(eq + 1));
    }
    return arg.text === tok.source;
  });
}
