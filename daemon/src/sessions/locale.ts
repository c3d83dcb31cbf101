import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The locale a session's shell gets (issue 9, item 2). A daemon started by systemd, cron or
 * `env -i` has no `LANG`; its shells would run in the POSIX locale (`ls` quotes `café.txt` as
 * `'caf'$'\303\251''.txt'`, `wc -m` counts bytes). With `shell.locale: auto` (the default):
 *
 * 1. an environment that names a locale (`LC_ALL`, `LC_CTYPE` or `LANG` non-empty) is kept as is;
 * 2. else the user's configured locale: `LANG=` in `$XDG_CONFIG_HOME/locale.conf` (or
 *    `~/.config/locale.conf`), then `/etc/locale.conf` (systemd), then `/etc/default/locale`
 *    (Debian) — used only when it is installed (`locale -a`), so a shell never starts with
 *    "setlocale: cannot change locale" warnings;
 * 3. else `C.UTF-8` (installed with every current glibc and musl), else the first installed UTF-8
 *    locale, else nothing (the POSIX locale).
 *
 * `shell.locale: inherit` keeps the daemon's environment as it is; any other value is a locale
 * name set as `LANG` (and as `LC_ALL` when the environment sets `LC_ALL`, which would win).
 * The user's rc files run after this and may still change it.
 */
export interface LocaleChoice {
  /** Variables to add to the session's environment (empty: leave it as it is). */
  env: Record<string, string>;
  /** Where the choice came from: `environment`, `inherit`, `config`, a file path, `default`, `none`. */
  source: string;
}

/** Files holding a user's or the machine's configured locale, in order of precedence. */
export function localeFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME && env.HOME.startsWith('/') ? env.HOME : homedir();
  const xdg = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  return [join(xdg, 'locale.conf'), '/etc/locale.conf', '/etc/default/locale'];
}

/** `LANG` in a locale.conf-style file (`LANG=de_DE.UTF-8`, quoted or not), or null. */
export function langFromFile(text: string): string | null {
  for (const raw of text.split('\n')) {
    const m = /^\s*(?:export\s+)?LANG\s*=\s*(.*?)\s*$/.exec(raw);
    if (!m) continue;
    const v = m[1]!.replace(/^(['"])(.*)\1$/, '$2').trim();
    if (v.length > 0 && /^[A-Za-z0-9_.@-]+$/.test(v)) return v;
  }
  return null;
}

/** Canonical spelling for comparing locale names (`en_US.UTF-8` ≡ `en_US.utf8`). */
function canonical(name: string): string {
  const [base, rest] = name.split('.', 2) as [string, string | undefined];
  if (rest === undefined) return base;
  const [codeset, modifier] = rest.split('@', 2) as [string, string | undefined];
  return `${base}.${codeset.toLowerCase().replace(/-/g, '')}${modifier !== undefined ? `@${modifier}` : ''}`;
}

let installedCache: Set<string> | null | undefined;

/** Installed locales (canonical names) from `locale -a`, or null when it cannot be run (musl). */
export function installedLocales(): Set<string> | null {
  if (installedCache !== undefined) return installedCache;
  try {
    const out = execFileSync('locale', ['-a'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
    installedCache = new Set(out.split('\n').map((l) => l.trim()).filter(Boolean).map(canonical));
  } catch {
    installedCache = null;
  }
  return installedCache;
}

/**
 * Picks the session locale (see the file comment).
 * @param setting `shell.locale` from the config: `auto`, `inherit` or a locale name.
 * @param env the daemon's environment.
 * @param installed installed locales (canonical), or null when unknown (then every name counts as installed).
 * @param readFile reads a file's text or returns null (injected for tests).
 */
export function chooseLocale(setting: string, env: NodeJS.ProcessEnv, installed: Set<string> | null = installedLocales(), readFile: (p: string) => string | null = readText): LocaleChoice {
  if (setting === 'inherit') return { env: {}, source: 'inherit' };
  if (setting !== 'auto') return { env: { LANG: setting, ...(env.LC_ALL ? { LC_ALL: setting } : {}) }, source: 'config' };
  if (env.LC_ALL || env.LC_CTYPE || env.LANG) return { env: {}, source: 'environment' };
  const has = (name: string): boolean => installed === null || installed.has(canonical(name));
  for (const file of localeFiles(env)) {
    const text = readFile(file);
    const lang = text === null ? null : langFromFile(text);
    if (lang !== null && has(lang)) return { env: { LANG: lang }, source: file };
  }
  if (has('C.UTF-8')) return { env: { LANG: 'C.UTF-8' }, source: 'default' };
  const utf8 = installed ? [...installed].find((n) => /\.utf8(@|$)/.test(n)) : undefined;
  return utf8 ? { env: { LANG: utf8 }, source: 'default' } : { env: {}, source: 'none' };
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
