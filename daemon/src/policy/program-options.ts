import { longNamed } from './options.js';
import type { ShellWord } from './shell-syntax.js';
import type { CommandView } from './wrappers.js';

/**
 * Options and subcommands whose value is a program the command runs (docs/command-policy.md
 * "Built-in confirmations"): that program would escape every rule, so the user is asked.
 */

/** tar's long options whose value is a program it runs. */
const TAR_PROGRAM_LONGS = ['to-command', 'use-compress-program', 'rsh-command', 'info-script', 'new-volume-script'];

/** Git configuration keys that name a program, load code or redirect where configuration comes from. */
export const GIT_RISKY_KEY =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand|worktree)|sequence\.editor|diff\.external|diff\.[^=]*\.(textconv|command)|difftool\.|mergetool\.|merge\.[^=]*\.driver|filter\.|alias\.|credential\.|gpg\.|pager\.|uploadpack\.|receive\.procreceiverefs|remote\.[^=]*\.(uploadpack|receivepack|proxy|vcs)|protocol\.|include\.|includeif\.|init\.templatedir|ssh\.variant|web\.browser|browser\.|man\.|url\.|submodule\.|http\.proxy|core\.packedgitlimit)/i;

/** `ssh -o` keys whose value is a command ssh runs locally (or a config that may name one). */
const SSH_COMMAND_KEYS = /^(proxycommand|localcommand|permitlocalcommand|knownhostscommand|remotecommand|match|include|pkcs11provider|securitykeyprovider)\b/i;
/** An `rsync -e` value that is just ssh with plain options. */
const PLAIN_RSH = /^ssh( +[-\w.=/:@]+)*$/;

/**
 * Options whose value is a program the command runs (docs/command-policy.md "Built-in
 * confirmations"): the program would escape every rule. `tar --to-command|--use-compress-program|
 * --rsh-command|--info-script|--new-volume-script|--checkpoint-action=exec…|-I|-F`, `rsync -e|--rsh|
 * --rsync-path` (except plain `ssh …`), `zip -TT|--unzip-command`, `ssh|scp|sftp -o ProxyCommand=…`
 * (and the other command keys, `Include`, the provider libraries), `-F FILE`, `ssh -I LIB`, `scp|sftp -S`, `man -P|--pager|-H|--html`.
 */
export function programOption(name: string, view: CommandView): string | null {
  const args = view.words.slice(1);
  const value = (i: number, flag: string): ShellWord | undefined => {
    const t = args[i]!.text;
    if (t.startsWith('--')) return t.includes('=') ? { ...args[i]!, text: t.slice(t.indexOf('=') + 1) } : args[i + 1];
    const at = t.indexOf(flag, 1);
    return at + 1 < t.length ? { ...args[i]!, text: t.slice(at + 1) } : args[i + 1];
  };
  const long = (t: string): string => (t.includes('=') ? t.slice(0, t.indexOf('=')) : t);
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (t === '--') break;
    if (!t.startsWith('-')) continue;
    const isLong = t.startsWith('--');
    switch (name) {
      case 'tar':
        if (isLong && longNamed(t, TAR_PROGRAM_LONGS)) return `tar --${longNamed(t, TAR_PROGRAM_LONGS)} runs a program of its choosing`;
        if (isLong && longNamed(t, ['checkpoint-action']) && /exec/.test(value(i, '=')?.text ?? 'exec')) return 'tar --checkpoint-action=exec runs a command';
        if (!isLong && /[IF]/.test(t.slice(1))) return `tar -${/I/.test(t) ? 'I' : 'F'} runs a program of its choosing`;
        break;
      case 'rsync': {
        const named = isLong ? longNamed(t, ['rsh', 'rsync-path']) : null;
        const flag = isLong ? (named ? `--${named}` : null) : t.slice(1).includes('e') && !t.includes('=') ? 'e' : null;
        if (flag === null) break;
        const v = value(i, flag === 'e' ? 'e' : '=');
        if (flag === '--rsync-path' || !v || v.dynamic || !PLAIN_RSH.test(v.text)) return `rsync ${flag === 'e' ? '-e' : flag} runs a program of its choosing`;
        break;
      }
      case 'zip':
        if (t === '-TT' || longNamed(t, ['unzip-command'])) return 'zip -TT runs a program of its choosing';
        break;
      case 'ssh':
      case 'scp':
      case 'sftp': {
        if (!isLong && t.slice(1).includes('o')) {
          const v = value(i, 'o');
          if (!v || v.dynamic || SSH_COMMAND_KEYS.test(v.text)) return `${name} -o ${(v?.text ?? '').split(/[= ]/)[0]} runs a local command`;
        }
        if (!isLong && /^-[A-Za-z]*F/.test(t) && !/^-[A-Za-z]*[oiJlLpRDWwBbcEIm]F/.test(t)) return `${name} -F loads a configuration that may run commands`;
        if (!isLong && name !== 'ssh' && /^-[A-Za-z]*S/.test(t)) return `${name} -S runs a program of its choosing`;
        // `ssh -I LIB`: a PKCS#11 library loaded into ssh (code of its choosing).
        if (!isLong && name === 'ssh' && /^-[A-Za-z]*I/.test(t) && !/^-[A-Za-z]*[bcDEeFiJLlmOoPpQRSWw]I/.test(t)) return 'ssh -I loads a library of its choosing';
        // `-D sftp_server_path`: a local program run in place of ssh and the remote sftp server.
        if (!isLong && name !== 'ssh' && /^-[A-Za-z]*D/.test(t) && !/^-[A-Za-z]*[oiJlPFScBRs]D/.test(t)) return `${name} -D runs a program of its choosing`;
        break;
      }
      case 'man':
        if (longNamed(t, ['pager', 'html']) || /^-[A-Za-z]*[PH]/.test(t)) return `man ${long(t)} runs a program of its choosing`;
        break;
      default:
        return null;
    }
  }
  return null;
}

/** Global git options that take a value as the next word. */
const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds', '--attr-source']);
/** Per-subcommand options of git whose value is a command git runs. */
const GIT_COMMAND_OPTIONS: Readonly<Record<string, { short?: string; long: readonly string[] }>> = {
  rebase: { short: 'x', long: ['exec'] },
  fetch: { long: ['upload-pack'] },
  pull: { long: ['upload-pack'] },
  clone: { short: 'u', long: ['upload-pack'] },
  'ls-remote': { long: ['upload-pack'] },
  archive: { long: ['exec'] },
  push: { long: ['receive-pack', 'exec'] },
  'send-pack': { long: ['receive-pack', 'exec'] },
  grep: { short: 'O', long: ['open-files-in-pager'] },
  difftool: { short: 'x', long: ['extcmd'] },
  'filter-branch': { long: ['env-filter', 'tree-filter', 'index-filter', 'parent-filter', 'msg-filter', 'commit-filter', 'tag-name-filter'] },
};

/**
 * git subcommands and options that run a command of the caller's choosing (docs/command-policy.md
 * "Built-in confirmations"): `rebase -x`, `fetch|pull|clone|ls-remote --upload-pack`, `clone -u`,
 * `push|send-pack --receive-pack`, `archive --exec`, `grep -O`, `difftool -x`, `filter-branch
 * --*-filter`, `bisect run`, `submodule foreach`, and `git config KEY VALUE` for a key that names
 * a program (run later by an ordinary git command).
 */
export function gitRunsCommand(view: CommandView): string | null {
  const args = view.words.slice(1);
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-')) i += GIT_GLOBAL_WITH_VALUE.has(args[i]!.text) ? 2 : 1;
  const sub = args[i];
  if (!sub || sub.dynamic) return null;
  const rest = args.slice(i + 1);
  if (sub.text === 'bisect' && rest[0]?.text === 'run') return 'git bisect run runs a command of its choosing';
  if (sub.text === 'submodule' && rest.some((w) => w.text === 'foreach')) return 'git submodule foreach runs a command in every submodule';
  if (sub.text === 'config') {
    const key = rest.find((w) => !w.text.startsWith('-'));
    const setting = rest.filter((w) => !w.text.startsWith('-')).length >= 2 || rest.some((w) => /^--(add|replace-all)$/.test(w.text));
    if (key && setting && (key.dynamic || GIT_RISKY_KEY.test(key.text))) return `git config ${key.text} names a program or loads configuration that later git commands use`;
    return null;
  }
  const spec = GIT_COMMAND_OPTIONS[sub.text];
  if (!spec) return null;
  for (const w of rest) {
    const t = w.text;
    if (t === '--') break;
    const named = longNamed(t, spec.long);
    if (named) return `git ${sub.text} --${named} runs a command of its choosing`;
    if (spec.short && !t.startsWith('--') && t.startsWith('-') && t.slice(1).includes(spec.short)) return `git ${sub.text} -${spec.short} runs a command of its choosing`;
  }
  return null;
}
