import type { ShellWord } from './shell-syntax.js';

/**
 * What a command's arguments mean, as far as deny and confirm rules need it (docs/command-policy.md
 * "Option equivalence"). A rule and a command are both read by {@link parseArguments}, so they
 * compare in one canonical form:
 *
 * - short options are a set of letters, in any clustering and order (`-rf` = `-r -f` = `-fr`);
 * - for the commands in {@link SPECS}, option aliases map to one canonical letter (`rm -R`,
 *   `rm --recursive` and `rm --rec` are all `r`; `git branch -D` is `-d -f`; `git push +main` is
 *   `-f`), and options that take a value consume it (`git -C dir push`: `dir` is not an
 *   argument);
 * - a `--long` option may be abbreviated to any prefix (GNU getopt and git accept unambiguous
 *   ones): against a spec it stands for every listed option it is a prefix of; against a rule
 *   of an unknown command it matches when it is a prefix of the rule's option;
 * - the first argument that is a known subcommand is canonical too (`npm i`, `npm add`,
 *   `npm isntall` are `npm install`; `npm ci` and its aliases are `npm ci`), and a command whose
 *   bare form is a subcommand gets it (`yarn` is `yarn install`).
 *
 * Unknown commands keep the generic reading (every `-xyz` is letters, every `--name` a long
 * option, everything else an argument).
 */

export interface OptionSpec {
  /** Short letter → its canonical letter(s) (`R` → `r`; `D` → `df`). */
  aliases?: Readonly<Record<string, string>>;
  /** Long options → canonical letter(s), or `''` for "itself" (used for prefix resolution too). */
  longs?: Readonly<Record<string, string>>;
  /** Short options that take a value (attached, or the next word). */
  shortValue?: string;
  /** Long options that take the next word as their value when not given as `--opt=value`. */
  longValue?: readonly string[];
  /** Subcommand spellings → canonical subcommand. */
  subAliases?: Readonly<Record<string, string>>;
  /** Specs of subcommands (by canonical name); a subcommand without one keeps the parent's. */
  subs?: Readonly<Record<string, OptionSpec>>;
  /** Subcommand of the bare command (`yarn` → `install`). */
  defaultSub?: string;
  /** A positional argument that implies an option (`git push +ref` forces). */
  positionalFlag?: (text: string) => string | null;
}

/** A command's (or a rule's) arguments in canonical form. */
export interface ParsedArguments {
  /** Canonical short letters. */
  flags: Set<string>;
  /** Long options (full names when a spec resolved them) with their `=value` or next-word value. */
  longs: { name: string; value: string | null }[];
  /** Arguments that are not options, the subcommand canonical (`npm i` → `install`). */
  positionals: ShellWord[];
  /** Some argument is known only at run time (it could be an option or a positional). */
  runtime: boolean;
}

const RECURSIVE_R = { aliases: { R: 'r' }, longs: { recursive: 'r', force: 'f', dir: 'd', verbose: 'v', interactive: '', 'one-file-system': '', 'preserve-root': '', 'no-preserve-root': '', help: '', version: '' } };
const CH_R = {
  longs: { recursive: 'R', changes: 'c', silent: 'f', quiet: 'f', verbose: 'v', reference: '', from: '', dereference: '', 'no-dereference': 'h', 'preserve-root': '', 'no-preserve-root': '', help: '', version: '' },
  longValue: ['reference', 'from'],
};
const NPM_INSTALL = ['i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'add', 'install', 'it', 'install-test'];
const NPM_CI = ['ci', 'clean-install', 'ic', 'install-clean', 'isntall-clean', 'cit', 'install-ci-test', 'clean-install-test', 'sit'];
const NPM_UNINSTALL = ['uninstall', 'un', 'unlink', 'remove', 'rm', 'r'];
const NPM_RUN = ['run', 'run-script', 'rum', 'urn'];

function table(groups: Record<string, readonly string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [canon, names] of Object.entries(groups)) for (const n of names) out[n] = canon;
  return out;
}

/** Option knowledge of common destructive or rule-worthy commands. */
export const SPECS: Readonly<Record<string, OptionSpec>> = {
  rm: RECURSIVE_R,
  cp: {
    aliases: { R: 'r' },
    longs: { recursive: 'r', force: 'f', archive: 'a', 'no-clobber': 'n', link: 'l', 'symbolic-link': 's', 'target-directory': 't', 'no-target-directory': 'T', verbose: 'v', interactive: 'i', update: '', backup: '', 'remove-destination': '' },
    shortValue: 'tS',
    longValue: ['target-directory', 'suffix'],
  },
  mv: { longs: { force: 'f', 'no-clobber': 'n', interactive: 'i', 'target-directory': 't', verbose: 'v', update: '', backup: '' }, shortValue: 'tS', longValue: ['target-directory', 'suffix'] },
  ln: { longs: { symbolic: 's', force: 'f', 'no-dereference': 'n', 'target-directory': 't', relative: 'r', verbose: 'v', interactive: 'i', logical: 'L', physical: 'P', backup: '' }, shortValue: 'tS', longValue: ['target-directory', 'suffix'] },
  chmod: CH_R,
  chown: CH_R,
  chgrp: CH_R,
  shred: { longs: { remove: 'u', zero: 'z', iterations: 'n', force: 'f', size: 's', exact: 'x', verbose: 'v', 'random-source': '' }, shortValue: 'ns', longValue: ['iterations', 'size', 'random-source'] },
  rsync: { longs: { recursive: 'r', archive: 'a', delete: '', 'delete-before': '', 'delete-during': '', 'delete-delay': '', 'delete-after': '', 'delete-excluded': '', del: '', 'remove-source-files': '' }, shortValue: 'eBfT', longValue: ['rsh', 'exclude', 'include', 'filter', 'rsync-path', 'temp-dir', 'backup-dir'] },
  git: {
    shortValue: 'Cc',
    longValue: ['git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix'],
    subs: {
      push: {
        longs: { force: 'f', delete: 'd', 'force-with-lease': '', 'force-if-includes': '', mirror: '', all: '', tags: '', 'set-upstream': 'u', 'dry-run': 'n', verbose: 'v', quiet: 'q', 'push-option': 'o', 'no-verify': '', prune: '', atomic: '', repo: '', 'receive-pack': '', exec: '' },
        shortValue: 'o',
        longValue: ['push-option', 'repo', 'receive-pack', 'exec'],
        positionalFlag: (t) => (t.startsWith('+') && t.length > 1 ? 'f' : null),
      },
      clean: { longs: { force: 'f', 'dry-run': 'n', quiet: 'q', interactive: 'i', exclude: 'e' }, shortValue: 'e', longValue: ['exclude'] },
      branch: { aliases: { D: 'df', M: 'mf', C: 'cf' }, longs: { delete: 'd', force: 'f', move: 'm', copy: 'c', 'set-upstream-to': 'u', list: 'l', all: 'a', remotes: 'r' }, shortValue: 'u', longValue: ['set-upstream-to'] },
      checkout: { longs: { force: 'f', quiet: 'q', 'orphan': '', 'detach': '' }, shortValue: 'bB' },
      switch: { longs: { force: 'f', 'discard-changes': 'f', create: 'c', 'force-create': 'C', quiet: 'q', detach: 'd' }, shortValue: 'cC', longValue: ['create', 'force-create'] },
      reset: { longs: { hard: '', soft: '', mixed: '', keep: '', merge: '', quiet: 'q' } },
      rm: { longs: { force: 'f', recursive: 'r', cached: '', 'dry-run': 'n', quiet: 'q' } },
    },
  },
  npm: {
    subAliases: table({ install: NPM_INSTALL, ci: NPM_CI, uninstall: NPM_UNINSTALL, run: NPM_RUN, exec: ['exec', 'x'], publish: ['publish'] }),
    longs: { global: 'g', force: 'f', 'save-dev': 'D', workspace: 'w', prefix: 'C' },
    // `-C DIR` is `--prefix DIR` (npm's own short alias).
    shortValue: 'wC',
    longValue: ['prefix', 'workspace', 'registry', 'cache', 'userconfig', 'globalconfig', 'loglevel', 'tag', 'otp', 'omit', 'include', 'install-strategy'],
  },
  pnpm: {
    subAliases: table({ install: ['install', 'i'], add: ['add'], remove: ['remove', 'rm', 'uninstall', 'un'], exec: ['exec'], dlx: ['dlx'] }),
    shortValue: 'FC',
    longValue: ['filter', 'dir', 'registry', 'reporter', 'loglevel'],
  },
  yarn: {
    subAliases: table({ install: ['install'], add: ['add'], remove: ['remove'], dlx: ['dlx'] }),
    defaultSub: 'install',
    longValue: ['cwd', 'registry', 'modules-folder', 'cache-folder'],
  },
  pip: { longValue: ['index-url', 'extra-index-url', 'requirement', 'constraint', 'target', 'prefix', 'root', 'src', 'python', 'find-links'], shortValue: 'rcti' },
  pip3: { longValue: ['index-url', 'extra-index-url', 'requirement', 'constraint', 'target', 'prefix', 'root', 'src', 'python', 'find-links'], shortValue: 'rcti' },
};

/** The spec of a command name (the last path component), or null. */
export function specOf(name: string): OptionSpec | null {
  return Object.prototype.hasOwnProperty.call(SPECS, name) ? SPECS[name]! : null;
}

/**
 * The long option `text` (`--name` or `--name=value`, as written) stands for, read as GNU
 * getopt_long and git's parse-options do: a name of `names` (written without `--`) it spells in
 * full, else the first it is a prefix of (`--to-com` is `to-command`). A prefix of several names
 * is refused by getopt; taking the first keeps the policy on the side of asking. Null when `text`
 * is not a long option or names none of them (docs/command-policy.md "Option equivalence").
 */
export function longNamed(text: string, names: readonly string[]): string | null {
  if (!text.startsWith('--') || text.length < 3) return null;
  const eq = text.indexOf('=');
  const raw = eq < 0 ? text.slice(2) : text.slice(2, eq);
  if (raw === '') return null;
  if (names.includes(raw)) return raw;
  for (const n of names) if (n.startsWith(raw)) return n;
  return null;
}

/** A long option as written (`rec`) → every listed full name it may stand for. */
function resolveLong(spec: OptionSpec | null, raw: string): string[] {
  const longs = spec?.longs;
  if (!longs) return [raw];
  if (Object.prototype.hasOwnProperty.call(longs, raw)) return [raw];
  const matches = Object.keys(longs).filter((n) => n.startsWith(raw));
  return matches.length > 0 ? matches : [raw];
}

function addLetters(out: ParsedArguments, letters: string): void {
  for (const l of letters) out.flags.add(l);
}

/**
 * Reads a command's arguments (everything after its name) in canonical form (see the file
 * comment). `name` is the command's last path component; `openArgs` marks arguments that only
 * arrive at run time (`xargs`).
 */
export function parseArguments(name: string, args: readonly ShellWord[], openArgs = false): ParsedArguments {
  let spec = specOf(name);
  const out: ParsedArguments = { flags: new Set(), longs: [], positionals: [], runtime: openArgs };
  let options = true;
  let subPending = spec !== null && (spec.subAliases !== undefined || spec.subs !== undefined);
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.dynamic) {
      out.runtime = true;
      out.positionals.push(w);
      continue;
    }
    const t = w.text;
    if (options && t === '--') {
      options = false;
      continue;
    }
    if (options && t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      const raw = eq < 0 ? t.slice(2) : t.slice(2, eq);
      const names = resolveLong(spec, raw);
      let value = eq < 0 ? null : t.slice(eq + 1);
      if (value === null && spec?.longValue && names.some((n) => spec!.longValue!.includes(n)) && i + 1 < args.length) value = args[++i]!.text;
      for (const n of names) {
        const key = spec?.longs?.[n];
        if (key) addLetters(out, key);
        else out.longs.push({ name: n, value });
      }
      continue;
    }
    if (options && t.length > 1 && t[0] === '-' && /^[A-Za-z0-9]$/.test(t[1]!)) {
      const generic = /^-[A-Za-z0-9]+$/.test(t);
      if (!generic && !spec?.shortValue?.includes(t[1]!)) {
        out.positionals.push(w);
        continue;
      }
      for (let j = 1; j < t.length; j++) {
        const l = t[j]!;
        addLetters(out, spec?.aliases?.[l] ?? l);
        if (spec?.shortValue?.includes(l)) {
          if (j + 1 === t.length) i++;
          break;
        }
      }
      continue;
    }
    if (subPending && spec) {
      const canon = spec.subAliases?.[t] ?? (spec.subs?.[t] ? t : undefined);
      if (canon !== undefined) {
        subPending = false;
        out.positionals.push(canon === t ? w : { ...w, text: canon });
        spec = spec.subs?.[canon] ?? { ...spec, subAliases: undefined, subs: undefined, defaultSub: undefined };
        continue;
      }
    }
    const implied = spec?.positionalFlag?.(t);
    if (implied) addLetters(out, implied);
    out.positionals.push(w);
  }
  if (subPending && spec?.defaultSub && out.positionals.length === 0) out.positionals.push({ text: spec.defaultSub, dynamic: false, glob: false, source: '' });
  return out;
}
