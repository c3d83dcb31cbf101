import { homedir, userInfo } from 'node:os';
import { posix } from 'node:path';

/**
 * Paths as the command policy compares them (docs/command-policy.md "Paths").
 *
 * - The home folder has many spellings: `~`, `~/`, `$HOME`, `${HOME}` (resolved by the word
 *   reader, shell-syntax.ts), `~USER` for the daemon's own user, and the home's real path. They
 *   all compare as the real path, and `~/..`, `/tmp/..`, `//` are normalised like any path.
 * - The **protected set** is the built-in floor that no config can remove (commands.ts judges
 *   `rm -r`, `find -delete`, `chmod/chown/chgrp -R`, `rsync --delete` and `mv` against it):
 *   `/` and every folder directly below it (`/usr`, `/etc`, `/home`, `/anything`); every entry
 *   directly below `/usr`, `/usr/local`, `/var`, `/etc`, `/boot`, `/home`, `/Users`, `/mnt`,
 *   `/media`, `/private`; the daemon user's home folder, its parent, and `~NAME` of any user.
 *   A glob covers a protected path when it can match one (`/*`, `/b*`, `/usr/l*`) or when it is
 *   a "match everything" last component (`*`, `.*`, `?*`, `[!.]*`…) directly below one
 *   (`~/*`, `/var/*`, `/tmp/.*`).
 *
 * Relative paths are resolved only when the working directory is known (the caller's `cwd`, or a
 * literal `cd` earlier in the same line); otherwise they are compared as written.
 */

interface Homes {
  /** The daemon's home folder (normalised, no trailing slash). */
  home: string;
  /** Other spellings of the same folder (the passwd entry when `$HOME` differs). */
  others: string[];
  user: string;
}

let homes: Homes | null = null;

function homeInfo(): Homes {
  if (homes) return homes;
  const home = clean(posix.normalize(homedir() || '/'));
  let user = '';
  const others: string[] = [];
  try {
    const u = userInfo();
    user = u.username;
    if (u.homedir && clean(posix.normalize(u.homedir)) !== home) others.push(clean(posix.normalize(u.homedir)));
  } catch {
    // no passwd entry: only $HOME is known
  }
  homes = { home, others, user };
  return homes;
}

/** The daemon's home folder as `$HOME` and `~` expand to it. */
export function homeDirectory(): string {
  return homeInfo().home;
}

/** The daemon user's login name (what `~NAME` must spell to be the home folder). */
export function homeUserName(): string {
  return homeInfo().user;
}

function clean(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/**
 * The canonical form of a path argument: `~`, `~/x`, `~USER/x` (the daemon's user) expanded to the
 * home folder, absolute paths normalised (`//`, `/.`, `..`, a trailing `/`), relative paths
 * resolved against `cwd` when it is known. Null when the path cannot be placed (relative without a
 * cwd, `~OTHER`). Works on glob text too (`~/*` → `/home/me/*`).
 */
export function canonicalPath(text: string, cwd: string | null): string | null {
  if (text === '') return null;
  let t = text;
  if (t.startsWith('~')) {
    const slash = t.indexOf('/');
    const user = slash < 0 ? t.slice(1) : t.slice(1, slash);
    const h = homeInfo();
    if (user !== '' && user !== h.user) return null;
    t = h.home + (slash < 0 ? '' : t.slice(slash));
  }
  if (t.startsWith('/')) return clean(resolveAbsolute(t, cwd));
  if (cwd === null || !cwd.startsWith('/')) return null;
  return clean(resolveAbsolute(`${cwd}/${t}`, cwd));
}

/** `/proc/self`, `/proc/thread-self`, `/proc/PID`, each optionally `/task/TID`: a process's folder. */
const PROC_PROCESS = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?$/;
/** `/proc/self/cwd`, `/proc/thread-self/cwd`, `/proc/PID/cwd`: a process's current folder. */
const PROC_CWD = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/cwd(?=\/|$)/;

/**
 * Resolves `.`, `..` and repeated slashes one component at a time, as the kernel walks a path, so
 * that the process links are followed where they point before a `..` applies: `/proc/self/root`
 * (and `/proc/PID/root`) is `/` (`/proc/self/root/../etc` is `/etc`), `/proc/self/cwd` is the
 * working directory when it is known (review round 5: `cd /etc && rm -rf /proc/self/cwd`). Through
 * a `cwd` link the policy cannot place, the rest is kept after it as written (see {@link isRunTimeFolder}).
 */
function resolveAbsolute(p: string, cwd: string | null): string {
  if (!p.includes('proc') && !p.includes('fd')) return posix.normalize(p).replace(/^\/\/+/, '/'); // no process or descriptor link on the way
  const stack: string[] = [];
  const parts = p.split('/');
  for (let i = 0; i < parts.length; i++) {
    const c = parts[i]!;
    if (c === '' || c === '.') continue;
    if (c === '..') {
      stack.pop();
      continue;
    }
    const inProcess = (stack.length === 2 || stack.length === 4) && stack[0] === 'proc' && PROC_PROCESS.test(`/${stack.join('/')}`);
    // `/dev/fd/N`, `/proc/self/fd/N`: a link to whatever the descriptor has open; what follows it
    // is kept as written (see isRunTimeFolder).
    if (/^\d+$/.test(c) && stack[stack.length - 1] === 'fd' && ((stack.length === 2 && stack[0] === 'dev') || (stack.length >= 3 && stack[0] === 'proc' && PROC_PROCESS.test(`/${stack.slice(0, -1).join('/')}`)))) {
      return `/${[...stack, c, ...parts.slice(i + 1).filter((x) => x !== '' && x !== '.')].join('/')}`;
    }
    stack.push(c);
    if (!inProcess) continue;
    if (c === 'root') stack.length = 0;
    else if (c === 'cwd') {
      const self = stack[1] === 'self' || stack[1] === 'thread-self';
      if (!self || cwd === null || !cwd.startsWith('/')) return `/${[...stack, ...parts.slice(i + 1).filter((x) => x !== '' && x !== '.')].join('/')}`;
      stack.splice(0, stack.length, ...resolveAbsolute(cwd, null).split('/').filter((x) => x !== ''));
    }
  }
  return `/${stack.join('/')}`;
}

/**
 * A canonical path through a process's current folder the policy cannot place (`/proc/self/cwd`
 * with no known working directory, `/proc/PID/cwd`), or through a descriptor link (`/dev/fd/3`,
 * `/proc/self/fd/3/x`, `/proc/PID/fd/N`; review round 6) other than the command's own standard
 * input, output and error: it may be any file or folder, so it is judged as a run-time word.
 */
export function isRunTimeFolder(abs: string): boolean {
  return PROC_CWD.test(abs) || (FD_LINK.test(abs) && !STANDARD_FD.test(abs));
}

/** `/dev/fd/N`, `/proc/self/fd/N`, `/proc/PID/fd/N` (and `…/task/TID/fd/N`): a descriptor's link, and anything through it. */
const FD_LINK = /^\/(dev|proc\/(self|thread-self|\d+)(\/task\/\d+)?)\/fd\/\d+(\/|$)/;
/** This process's standard input, output or error itself (`/dev/fd/2`, `/proc/self/fd/1`): what the same command's redirections give it, judged there. */
const STANDARD_FD = /^\/(dev|proc\/(self|thread-self))\/fd\/[012]$/;

/** `/proc/self/root`, `/proc/PID/root`, `/proc/thread-self/root` (and `…/task/TID/root`): links to `/`. */
// ---- where a command runs ----------------------------------------------------------------------

/**
 * The working directories a command may run in (docs/command-policy.md "The working directory").
 * Usually one known folder; after `cd` in a branch or one that can fail, several; after a `cd` to a
 * folder only known at run time (`cd "$X"`, `cd -`, `popd`), also an unknown one.
 */
export interface Dirs {
  /** Absolute, canonical folders it may run in. */
  readonly known: readonly string[];
  /** The call's directory was not given: relative paths are compared as written only. */
  readonly asWritten: boolean;
  /** It may run in a folder only known at run time: a relative path could be anything. */
  readonly unknown: boolean;
}

/** At most this many known folders are tracked; beyond, the directory counts as unknown. */
const MAX_DIRS = 8;

/** No directory given: relative paths compared as written. */
export const NO_DIRS: Dirs = Object.freeze({ known: Object.freeze([]) as readonly string[], asWritten: true, unknown: false });
/** A directory only known at run time. */
export const UNKNOWN_DIRS: Dirs = Object.freeze({ known: Object.freeze([]) as readonly string[], asWritten: false, unknown: true });

/** The directories of a call whose working directory is `cwd` (absolute), or {@link NO_DIRS}. */
export function dirsAt(cwd: string | null | undefined): Dirs {
  if (!cwd || !cwd.startsWith('/')) return NO_DIRS;
  return { known: [clean(posix.normalize(cwd))], asWritten: false, unknown: false };
}

/** Where it may run after either of two histories (returns `a` itself when `b` adds nothing). */
export function unionDirs(a: Dirs, b: Dirs): Dirs {
  if (a === b) return a;
  const extra = b.known.filter((k) => !a.known.includes(k));
  const asWritten = a.asWritten || b.asWritten;
  let unknown = a.unknown || b.unknown;
  if (extra.length === 0 && asWritten === a.asWritten && unknown === a.unknown) return a;
  let known = extra.length === 0 ? a.known : [...a.known, ...extra];
  if (known.length > MAX_DIRS) {
    known = known.slice(0, MAX_DIRS);
    unknown = true;
  }
  return { known, asWritten, unknown };
}

/**
 * Where it runs after a successful `cd target` (literal text; `~` forms expanded): absolute
 * targets replace every folder; relative ones are resolved against each.
 */
export function changeDir(dirs: Dirs, target: string): Dirs {
  const abs = target.startsWith('/') || target.startsWith('~') ? canonicalPath(target, null) : null;
  if (abs !== null) return { known: [abs], asWritten: false, unknown: false };
  if (target.startsWith('~')) return UNKNOWN_DIRS; // ~OTHER
  const known: string[] = [];
  for (const k of dirs.known) {
    const p = canonicalPath(target, k);
    if (p !== null && !known.includes(p)) known.push(p);
  }
  return { known, asWritten: dirs.asWritten, unknown: dirs.unknown };
}

/** `~NAME` or `~NAME/` of any user: a home folder even when the policy cannot place it. */
export function isBareTildeUser(text: string): boolean {
  return /^~[^/]*\/?$/.test(text);
}

const ONE_LEVEL_BELOW = new Set(['/usr', '/usr/local', '/var', '/etc', '/boot', '/home', '/Users', '/mnt', '/media', '/private']);

/** Why an absolute, canonical path is protected (see the file comment), or null. */
export function protectedPath(abs: string): string | null {
  if (abs === '/') return 'the root folder';
  const h = homeInfo();
  for (const home of [h.home, ...h.others]) {
    if (abs === home) return `${abs}, the home folder`;
    if (abs === posix.dirname(home)) return `${abs}, the folder holding the home folder`;
  }
  const parent = posix.dirname(abs);
  if (parent === '/') return `${abs}, a top-level folder`;
  if (parent === '/home' || parent === '/Users') return `${abs}, a home folder`;
  if (ONE_LEVEL_BELOW.has(parent)) return `${abs}, a system folder`;
  return null;
}

/** Concrete protected paths a glob is tried against (plus the home folder and its parent). */
const PROBES = [
  '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/libx32', '/media', '/mnt', '/opt', '/proc', '/root', '/run',
  '/sbin', '/snap', '/srv', '/sys', '/tmp', '/usr', '/var', '/Users', '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/lib64', '/usr/local', '/usr/share',
  '/usr/include', '/usr/local/bin', '/usr/local/lib', '/var/lib', '/var/log', '/var/cache', '/var/tmp', '/etc/ssh', '/etc/passwd', '/etc/shadow', '/boot/efi',
];
/** Names a "match everything" component must match (plain names, or dot files). */
const ANY_NAME = ['bin', 'etc', 'Documents', 'a.b', 'x', 'node_modules'];
const ANY_DOTFILE = ['.config', '.ssh', '.bashrc', '.local'];

let probeCache: { home: string; list: string[] } | null = null;

function probes(): string[] {
  const h = homeInfo();
  if (probeCache?.home !== h.home) {
    const extra = [h.home, posix.dirname(h.home), ...h.others, `${h.home}/.ssh`, `${h.home}/.config`];
    probeCache = { home: h.home, list: [...new Set([...PROBES, ...extra])] };
  }
  return probeCache.list;
}

/**
 * Why a canonical glob (absolute, `*` may cross `/`) covers a protected path, or null.
 * @param toRegExp the policy's glob compiler (rules.ts), passed in to keep this file dependency-free.
 */
export function globCoversProtected(glob: string, toRegExp: (g: string) => RegExp): string | null {
  const re = toRegExp(glob);
  // A glob never expands to `/` itself (`/*` is every entry of `/`, not `/`).
  for (const p of probes()) if (p !== '/' && re.test(p)) return `${glob}, which matches ${protectedPath(p) ?? p}`;
  const dir = posix.dirname(glob);
  const last = posix.basename(glob);
  if (/[*?[]/.test(dir) || !/[*?[]/.test(last)) return null;
  const why = protectedPath(dir);
  if (!why) return null;
  const lastRe = toRegExp(last);
  if (ANY_NAME.every((n) => lastRe.test(n)) || ANY_DOTFILE.every((n) => lastRe.test(n))) return `${glob}, everything in ${why}`;
  return null;
}

/** `/dev/…` paths that are not a disk (writing to them is harmless). */
const HARMLESS_DEVICE = /^\/dev\/(null|zero|full|u?random|std(in|out|err)|tty\d*|ptmx|console|kmsg|(fd|pts|shm|mqueue)(\/.*)?)$/;

/** Kernel control files that reboot, power off, crash or detach hardware when written. */
const KERNEL_CONTROL = /^\/(proc\/sysrq-trigger|proc\/sys\/kernel\/(sysrq|panic|core_pattern|modprobe|poweroff_cmd)|sys\/power\/.+|sys\/.+\/(delete|remove|unbind|eject)|sys\/firmware\/efi\/(efi)?vars\/.+)$/;

/**
 * True for a path whose writing destroys data or stops the machine: a device under `/dev` that
 * could be a disk or partition (not `/dev/null`, a tty, …), `/proc/sysrq-trigger` and other kernel
 * control files (`/sys/power/state`, `/sys/block/sda/device/delete`, firmware variables).
 */
export function isRawDevice(abs: string): boolean {
  if (abs.startsWith('/dev/')) return !HARMLESS_DEVICE.test(abs);
  return (abs.startsWith('/proc/') || abs.startsWith('/sys/')) && KERNEL_CONTROL.test(abs);
}

/** The holdfast home (`$HOLDFAST_HOME`, default `~/.holdfast`): config, token, state. */
export function holdfastHome(): string {
  const env = process.env.HOLDFAST_HOME;
  return env && env.startsWith('/') ? clean(posix.normalize(env)) : `${homeInfo().home}/.holdfast`;
}

let marker: string | null = null;

/**
 * The last component of {@link holdfastHome} (`.holdfast`): every path into the home spells it.
 * Read once (the daemon's `HOLDFAST_HOME` does not change while it runs).
 */
export function holdfastHomeMarker(): string {
  marker ??= posix.basename(holdfastHome());
  return marker;
}

/** What the holdfast home holds (shared/src/paths.ts): its config, token, state, logs, sockets, sessions. */
const HOME_ENTRIES = new Set(['config.yaml', 'token', 'state', 'logs', 'run', 'sessions']);

/**
 * Does a path argument name holdfast's own configuration — a project's `.holdfast.yaml`, the
 * holdfast home itself or what it holds (`config.yaml`, `token`, `state/`, `logs/`, `run/`,
 * `sessions/`; a workspace kept inside the home is not part of it)? Relative paths count when a
 * component is `.holdfast` or the name is `.holdfast.yaml`; a glob counts when its last component
 * can match `.holdfast.yaml`.
 */
export function namesHoldfastConfig(text: string, glob: boolean, cwd: string | null, toRegExp: (g: string) => RegExp): boolean {
  const parts = text.split('/');
  const last = parts[parts.length - 1]!;
  if (last === '.holdfast.yaml' || parts.includes('.holdfast')) return true;
  if (glob && last.startsWith('.') && toRegExp(last).test('.holdfast.yaml')) return true;
  const abs = canonicalPath(text, cwd);
  if (abs === null) return false;
  const home = holdfastHome();
  if (abs === home || abs.endsWith('/.holdfast.yaml')) return true;
  if (glob) {
    // A glob anywhere in the path (`~/.holdfas[t]/config.yaml`, `~/.holdfas?`) that matches the
    // home or one of its entries.
    const re = toRegExp(abs);
    if (re.test(home) || [...HOME_ENTRIES].some((e) => re.test(`${home}/${e}`))) return true;
  }
  if (!abs.startsWith(`${home}/`)) return false;
  const entry = abs.slice(home.length + 1).split('/')[0]!;
  return HOME_ENTRIES.has(entry) || (glob && /[*?[]/.test(entry));
}

// ---- shell startup files (issue 18) --------------------------------------------------------------

/** Files in a home folder that shells and sessions run or read at start (bash, sh, zsh, ksh, fish, readline, X, PAM). */
const HOME_STARTUP_FILES = [
  '.bashrc', '.bash_profile', '.bash_login', '.profile', '.bash_logout', '.bash_aliases',
  '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.kshrc', '.mkshrc', '.inputrc',
  '.xprofile', '.xsessionrc', '.pam_environment', '.config/fish/config.fish',
];
/** Folders in a home folder whose every file is such a file. */
const HOME_STARTUP_DIRS = ['.bashrc.d', '.config/fish/conf.d', '.config/environment.d'];
/** System-wide startup files and folders. */
const SYSTEM_STARTUP_FILES = ['/etc/profile', '/etc/bash.bashrc', '/etc/bashrc', '/etc/environment', '/etc/zshrc', '/etc/zshenv', '/etc/zprofile', '/etc/zlogin', '/etc/inputrc'];
const SYSTEM_STARTUP_DIRS = ['/etc/profile.d', '/etc/zsh', '/etc/fish/conf.d'];
/** Last components that name a startup file wherever a run-time prefix puts them (`"$D/.bashrc"`). */
const STARTUP_NAMES = new Set(HOME_STARTUP_FILES.map((f) => posix.basename(f)));
/** Cheap pre-test: a word that could name a startup file spells one of these, or is a glob. */
export const MAY_NAME_STARTUP = /rc|profile|log(in|out)|environment|zsh|fish|aliases|xsession|[*?[]/;

let startupCache: { home: string; files: string[]; dirs: string[] } | null = null;

function startupPaths(): { files: string[]; dirs: string[] } {
  const h = homeInfo();
  if (startupCache?.home !== h.home) {
    const homes = [h.home, ...h.others];
    startupCache = {
      home: h.home,
      files: [...homes.flatMap((home) => HOME_STARTUP_FILES.map((f) => `${home}/${f}`)), ...SYSTEM_STARTUP_FILES],
      dirs: [...homes.flatMap((home) => HOME_STARTUP_DIRS.map((d) => `${home}/${d}`)), ...SYSTEM_STARTUP_DIRS],
    };
  }
  return startupCache;
}

/**
 * The shell startup file a path argument names — `~/.bashrc`, `~/.profile`, `~/.zshrc`,
 * `/etc/profile.d/x.sh`, a file in `~/.bashrc.d/`, … — or null (issue 18: writing one makes every
 * later shell, the session's own after a reset included, run what was added without judgement).
 * A relative name is placed when the working directory is known, and counts by its name alone
 * when it is not; a glob counts when it can match one; a word known only at run time counts by
 * its last component.
 */
export function namesShellStartupFile(text: string, glob: boolean, dynamic: boolean, cwd: string | null, toRegExp: (g: string) => RegExp): string | null {
  const last = posix.basename(text);
  if (dynamic) return STARTUP_NAMES.has(last) ? text : null;
  const abs = canonicalPath(text, cwd);
  if (abs === null) return !text.startsWith('~') && !text.startsWith('/') && STARTUP_NAMES.has(last) && !text.includes('/') ? text : null;
  const { files, dirs } = startupPaths();
  if (glob) {
    const re = toRegExp(abs);
    const hit = files.find((f) => re.test(f)) ?? dirs.find((d) => re.test(d) || re.test(`${d}/x.sh`));
    return hit ?? null;
  }
  if (files.includes(abs) || dirs.includes(abs)) return abs;
  return dirs.some((d) => abs.startsWith(`${d}/`)) ? abs : null;
}
