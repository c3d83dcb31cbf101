import { posix } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import type { HoldfastConfig } from '@holdfast/shared/config';
import { parseArguments, type ParsedArguments } from './options.js';
import { canonicalPath } from './paths.js';
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
 * - **deny and confirm rules match loosely**, so they are hard to dodge: rule and command are both
 *   read in canonical form (options.ts: option aliases such as `rm -R` = `--recursive` = `-r`,
 *   short clusters in any order, `--long` abbreviations, `npm i` = `npm install`); every option of
 *   the rule must be among the command's (before `--`), every other argument of the rule must
 *   appear in the command, in order but not necessarily adjacent. Path arguments also compare in
 *   canonical form (paths.ts: `//`, `/tmp/..` are `/`; `~`, `~/`, `$HOME`, `~USER` and the home's
 *   real path are one folder; relative paths against the known working directory). When only an
 *   argument known at run time (`$X`, a glob, `xargs` input) could complete the match, the result
 *   is `possible`: a deny becomes a confirmation.
 * - **allow rules match strictly**, so they are hard to stretch: the command must be named bare
 *   or from a system bin folder (a rule naming a path matches that path only), and its first
 *   arguments must be exactly the rule's (globs allowed), with nothing known only at run time
 *   among them; more arguments may follow.
 */

export type RuleKind = 'deny' | 'confirm' | 'allow';
/** Result of matching one rule: certain, only possible (run-time words), or not at all. */
export type MatchResult = 'match' | 'possible' | 'none';

interface Pattern {
  source: string;
  literal: string | null;
  re: RegExp | null;
  /** Canonical path of a literal that does not depend on the working directory (`~` → home). */
  canon: string | null;
}

type RuleToken = { t: 'flags'; letters: string; source: string } | { t: 'long'; name: string; value: Pattern | null; source: string } | { t: 'word'; p: Pattern };

/** A loose (deny/confirm) rule's requirements, in the canonical form of options.ts. */
interface LooseForm {
  flags: string[];
  longs: { name: string; value: Pattern | null }[];
  words: Pattern[];
}

export interface CompiledRule {
  kind: RuleKind;
  /** The rule as written in config. */
  source: string;
  name: Pattern;
  nameHasSlash: boolean;
  /** The arguments as written (strict matching of allow rules). */
  tokens: RuleToken[];
  loose: LooseForm;
}

export interface CompiledRules {
  deny: CompiledRule[];
  confirm: CompiledRule[];
  allow: CompiledRule[];
  default: RuleKind;
  /** Per command name: the rules that can match it, in order (see {@link rulesFor}). */
  byName: Map<string, RulesByKind>;
}

/** The deny, confirm and allow rules that can match one command name. */
export interface RulesByKind {
  deny: CompiledRule[];
  confirm: CompiledRule[];
  allow: CompiledRule[];
}

const NO_RULES: RulesByKind = { deny: [], confirm: [], allow: [] };
const MAX_INDEXED_NAMES = 1024;

/**
 * The rules that can match a command named `head` (a literal rule name equal to its last path
 * component, and every rule whose name is a glob or a path), in config order. Indexed per name:
 * most rules never need to be looked at.
 */
export function rulesFor(rules: CompiledRules, head: ShellWord): RulesByKind {
  if (head.dynamic) return NO_RULES;
  const name = commandName(head);
  let hit = rules.byName.get(name);
  if (!hit) {
    const can = (r: CompiledRule): boolean => r.nameHasSlash || r.name.literal === null || r.name.literal === name;
    hit = { deny: rules.deny.filter(can), confirm: rules.confirm.filter(can), allow: rules.allow.filter(can) };
    if (rules.byName.size >= MAX_INDEXED_NAMES) rules.byName.clear();
    rules.byName.set(name, hit);
  }
  return hit;
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
      byName: new Map(),
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
  const parsed = parseArguments(head!.glob ? '' : commandName(head!), args);
  return {
    kind,
    source,
    name: pattern(head!),
    nameHasSlash: head!.text.includes('/'),
    tokens: args.map(token),
    loose: {
      flags: [...parsed.flags],
      longs: parsed.longs.map((l) => ({ name: l.name, value: l.value === null ? null : pattern({ text: l.value, dynamic: false, glob: /[*?[]/.test(l.value), source: l.value }) })),
      words: parsed.positionals.map(pattern),
    },
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
  if (w.glob) return { source: w.text, literal: null, re: globToRegExp(w.text), canon: null };
  return { source: w.text, literal: w.text, re: null, canon: isPathLike(w.text) ? canonicalPath(w.text, null) : null };
}

function isPathLike(text: string): boolean {
  return text.includes('/') || text.startsWith('~');
}

/** A shell glob (`*`, `?`, `[…]`, `[!…]`) as an anchored regular expression; `*` also matches `/`. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const bracket = bracketExpression(glob, i);
      if (bracket === null) {
        re += '\\[';
        continue;
      }
      re += bracket.re;
      i = bracket.end;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/**
 * POSIX character classes as bash matches them. Letters reach beyond ASCII (a UTF-8 locale's
 * `[[:alpha:]]` matches `é`), so the letter classes take every non-ASCII character too: a
 * pattern is then judged to match at least what bash would.
 */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: 'a-zA-Z\\u00aa-\\uffff', alnum: '0-9a-zA-Z\\u00aa-\\uffff', lower: 'a-z\\u00aa-\\uffff', upper: 'A-Z\\u00aa-\\uffff',
  digit: '0-9', xdigit: '0-9A-Fa-f', space: '\\s', blank: ' \\t', punct: '!-\\/:-@\\[-`{-~', word: '\\w\\u00aa-\\uffff',
  cntrl: '\\x00-\\x1f\\x7f', print: '\\x20-\\x7e\\u00a0-\\uffff', graph: '\\x21-\\x7e\\u00a1-\\uffff',
};

/**
 * A bracket expression of a glob starting at `glob[start] === '['` (`[abc]`, `[!a-z]`, `[^x]`,
 * `[]a]`, `[[:alpha:]_]`): its regular-expression form and the index of its closing `]`, or null
 * when it is not closed (then `[` is literal, as in bash).
 */
function bracketExpression(glob: string, start: number): { re: string; end: number } | null {
  let i = start + 1;
  let negate = false;
  if (glob[i] === '!' || glob[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  for (; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === ']' && !first) return { re: `[${negate ? '^' : ''}${body}]`, end: i };
    first = false;
    if (c === '[' && glob[i + 1] === ':') {
      const close = glob.indexOf(':]', i + 2);
      const cls = close < 0 ? undefined : POSIX_CLASSES[glob.slice(i + 2, close)];
      if (cls !== undefined) {
        body += cls;
        i = close + 1;
        continue;
      }
    }
    if (c === '\\' && i + 1 < glob.length) {
      body += `\\${glob[++i]!}`;
      continue;
    }
    body += c === ']' || c === '[' || c === '^' ? `\\${c}` : c;
  }
  return null;
}

function test(p: Pattern, s: string): boolean {
  return p.literal !== null ? p.literal === s : p.re!.test(s);
}

/**
 * The forms an argument is compared in: as written and, for paths, canonical (paths.ts; relative
 * paths only with a known `cwd`).
 */
function forms(text: string, cwd: string | null): string[] {
  if (!isPathLike(text) && cwd === null) return [text];
  let n = canonicalPath(text, cwd);
  if (n === null && text.includes('/')) {
    n = posix.normalize(text);
    if (n.length > 1 && n.endsWith('/')) n = n.slice(0, -1);
  }
  return n === null || n === text ? [text] : [text, n];
}

/** The forms a rule's literal is compared in (see {@link forms}). */
function literalForms(p: Pattern, cwd: string | null): string[] {
  const lit = p.literal!;
  if (p.canon !== null) return p.canon === lit ? [lit] : [lit, p.canon];
  return forms(lit, cwd);
}

/** Does a rule's name match the view's command name? (A dynamic name never matches.) */
export function nameMatches(rule: CompiledRule, head: ShellWord): boolean {
  if (head.dynamic) return false;
  return test(rule.name, rule.nameHasSlash ? head.text : commandName(head));
}

const parsedViews = new WeakMap<CommandView, ParsedArguments>();

/** A view's arguments in canonical form (options.ts), computed once per view. */
export function viewArguments(view: CommandView): ParsedArguments {
  let a = parsedViews.get(view);
  if (!a) {
    const head = view.words[0]!;
    a = parseArguments(head.dynamic ? '' : commandName(head), view.words.slice(1), view.openArgs);
    parsedViews.set(view, a);
  }
  return a;
}

/** Could this argument be the rule's word at run time? `certain` when it is exactly so now. */
function argMatches(arg: ShellWord, p: Pattern, cwd: string | null): 'certain' | 'possible' | 'no' {
  if (arg.dynamic) return 'possible';
  const argForms = forms(arg.text, cwd);
  if (p.literal !== null) {
    const lits = literalForms(p, cwd);
    if (argForms.some((f) => lits.includes(f))) return 'certain'; // for a glob argument: the rule names this very pattern
    if (!arg.glob) return 'no';
    const res = argForms.map(globToRegExp);
    return lits.some((f) => res.some((re) => re.test(f))) ? 'possible' : 'no';
  }
  if (argForms.some((f) => p.re!.test(f))) return arg.glob ? 'possible' : 'certain';
  return arg.glob ? 'possible' : 'no';
}

/** A command's `--name` satisfies a rule's: the same, or an abbreviation of it. */
function longMatches(command: string, rule: string): boolean {
  return command === rule || (command.length > 0 && rule.startsWith(command));
}

/**
 * Matches a deny/confirm rule loosely against a view (see the file comment). `cwd` is the
 * working directory the command runs in when known (relative paths then compare as absolute).
 */
export function matchLoose(rule: CompiledRule, view: CommandView, cwd: string | null = null): MatchResult {
  const head = view.words[0];
  if (!head || !nameMatches(rule, head)) return 'none';
  const a = viewArguments(view);
  const req = rule.loose;
  let possible = false;
  for (const f of req.flags) {
    if (a.flags.has(f)) continue;
    if (!a.runtime) return 'none';
    possible = true;
  }
  for (const l of req.longs) {
    if (a.longs.some((c) => longMatches(c.name, l.name) && (l.value === null || (c.value !== null && test(l.value, c.value))))) continue;
    if (!a.runtime) return 'none';
    possible = true;
  }
  const words = req.words;
  if (words.length === 0) return possible ? 'possible' : 'match';
  // Certain pass: static arguments only, in order.
  let at = 0;
  let certain = true;
  for (const p of words) {
    while (at < a.positionals.length && argMatches(a.positionals[at]!, p, cwd) !== 'certain') at++;
    if (at >= a.positionals.length) {
      certain = false;
      break;
    }
    at++;
  }
  if (certain) return possible ? 'possible' : 'match';
  // Possible pass: run-time arguments may stand for any rule word; open arguments may add them.
  at = 0;
  for (const p of words) {
    while (at < a.positionals.length && argMatches(a.positionals[at]!, p, cwd) === 'no') at++;
    if (at >= a.positionals.length) return view.openArgs ? 'possible' : 'none';
    at++;
  }
  return 'possible';
}

const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;

/** Is the command named bare or from a system bin folder (not `./make`, `/tmp/npm`)? */
export function namedFromSystem(head: ShellWord): boolean {
  return !head.text.includes('/') || SYSTEM_BIN.test(head.text);
}

/** Matches an allow rule strictly (see the file comment). */
export function matchStrict(rule: CompiledRule, view: CommandView): boolean {
  const head = view.words[0];
  if (!head || !nameMatches(rule, head)) return false;
  if (!rule.nameHasSlash && !namedFromSystem(head)) return false;
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
