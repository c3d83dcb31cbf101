import { longNamed } from './options.js';
import type { Redirection } from './script-scan.js';
import type { ShellWord } from './shell-syntax.js';
import { commandName, type CommandView } from './wrappers.js';

/**
 * The built-in read-only list (issue 5): commands that only look, allowed without a rule when the
 * default would otherwise confirm or deny. A command qualifies only if it writes no file through a
 * redirection (`/dev/null` is fine), is run by its bare name or from a system bin folder (never
 * `./ls`), and — for commands that can write or run things with some options — none of those
 * options is present and no argument is known only at run time.
 */

/** Commands that only read whatever their arguments. */
const ANY_ARGS = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'printf', 'true', 'false', 'test', '[', 'grep', 'egrep', 'fgrep',
  'which', 'type', 'file', 'stat', 'du', 'df', 'whoami', 'id', 'uname', 'basename', 'dirname', 'realpath',
  'readlink', 'sha1sum', 'sha256sum', 'sha512sum', 'md5sum', 'cksum', 'diff', 'cmp', 'cut', 'tr', 'nl', 'od', 'hexdump',
  'column', 'jq', 'cd', 'printenv', 'ps', 'free', 'uptime', 'nproc', 'rev', 'fold', 'comm', 'tac', 'strings', 'seq', 'sleep',
]);
// Not here, because some option writes or runs something: `sort` (-o, --compress-program), `tree`
// (-o), `find`, `rg`, `git` (handled below); interpreters and editors (`awk`, `sed`, `perl`, …).

/** Git subcommands that only read (with no global options before them). */
const GIT_READ = new Set(['status', 'diff', 'log', 'show', 'blame', 'rev-parse', 'ls-files', 'describe', 'shortlog']);
const GIT_WRITING_OPTIONS = /^(--output|--ext-diff|--textconv)/;

const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;

/** The label of the read-only entry that allows this view (`read-only: git status`), or null. */
export function readOnlyLabel(view: CommandView, redirects: readonly Redirection[]): string | null {
  const head = view.words[0];
  if (!head || head.dynamic || head.glob) return null;
  if (head.text.includes('/') && !SYSTEM_BIN.test(head.text)) return null;
  if (redirects.some((r) => r.writes)) return null;
  const name = commandName(head);
  const args = view.words.slice(1);
  const runtime = view.openArgs || args.some((a) => a.dynamic || a.glob);
  if (ANY_ARGS.has(name)) return `read-only: ${name}`;
  switch (name) {
    case 'find':
      return !runtime && !args.some((a) => FIND_ACTIONS.has(a.text)) ? 'read-only: find' : null;
    case 'rg':
      return !runtime && !args.some((a) => longNamed(a.text, ['pre'])) ? 'read-only: rg' : null;
    case 'sort':
      return !runtime && !args.some((a) => a.text === '-o' || longNamed(a.text, ['output', 'compress-program']) || /^-[A-Za-z]*o/.test(a.text)) ? 'read-only: sort' : null;
    case 'tree':
      return !runtime && !args.some((a) => /^-[A-Za-z]*o/.test(a.text) || longNamed(a.text, ['fromfile'])) ? 'read-only: tree' : null;
    case 'uniq':
      return !runtime && positionals(args).length <= 1 ? 'read-only: uniq' : null;
    case 'date':
      return !runtime && !args.some((a) => /^-[A-Za-z]*s/.test(a.text) || longNamed(a.text, ['set'])) ? 'read-only: date' : null;
    case 'env':
      return args.length === 0 ? 'read-only: env' : null;
    case 'git':
      return gitReadOnly(args, runtime);
    default:
      return null;
  }
}

function gitReadOnly(args: ShellWord[], runtime: boolean): string | null {
  if (runtime || args.length === 0) return null;
  const sub = args[0]!.text;
  const rest = args.slice(1);
  // Also abbreviated (`--out=f`, `--ext`): git's option parser takes unique prefixes.
  if (rest.some((a) => GIT_WRITING_OPTIONS.test(a.text) || longNamed(a.text, ['output', 'ext-diff', 'textconv']))) return null;
  if (GIT_READ.has(sub)) return `read-only: git ${sub}`;
  if (sub === 'remote' && rest.every((a) => a.text === '-v' || a.text === '--verbose')) return 'read-only: git remote';
  if (sub === 'branch' && rest.every((a) => /^(-a|-r|-v|-vv|--list|--all|--remotes|--verbose|--show-current|--no-color)$/.test(a.text))) return 'read-only: git branch';
  return null;
}

function positionals(args: ShellWord[]): ShellWord[] {
  return args.filter((a) => !a.text.startsWith('-') || a.text === '-');
}
