import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The environment a guardian (and so the session's shell and tasks) starts from: the daemon's
 * own, minus what `npm start` / `npm run` added because of how holdfast itself was launched
 * (decision recorded in docs/sessions.md):
 * - `npm_*` variables (`npm_config_cache`, `npm_lifecycle_event`, `npm_package_*`, …) and
 *   `INIT_CWD` — they describe holdfast's checkout, not the user's project, and e.g. point npm in
 *   the session at holdfast's cache settings;
 * - `PATH` entries npm prepends for run scripts: `<dir>/node_modules/.bin` for holdfast's folder,
 *   every folder below it AND every folder above it up to `/` (npm adds one per ancestor, so
 *   `/tmp/node_modules/.bin` — writable by anyone — would come before `/usr/bin`), and npm's
 *   `node-gyp-bin`; so `tsc`, `git` or `node` in a session resolve to the project's or the user's
 *   own, never to holdfast's or to a binary planted in a parent folder.
 * `HOLDFAST_SESSION=<gid>` is added (the process-sweep marker, DESIGN §4.4).
 *
 * @param env the daemon's environment (`process.env`)
 * @param installRoot holdfast's checkout (absolute); PATH entries below it that npm added are dropped
 * @param gid the session's guardian id
 */
export function sessionBaseEnv(env: NodeJS.ProcessEnv, installRoot: string, gid: string): NodeJS.ProcessEnv {
  return { ...withoutNpmLaunch(env, installRoot), HOLDFAST_SESSION: gid };
}

/** holdfast's checkout (the folder above `daemon/`), whose npm run-script traces are dropped. */
export const HOLDFAST_INSTALL_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

/**
 * `env` without what `npm start` / `npm run` added (see {@link sessionBaseEnv}). holdfastd applies
 * it to its own environment at start, so what it runs itself (environment probes, helpers) does
 * not find programs through npm's PATH entries either.
 */
export function withoutNpmLaunch(env: NodeJS.ProcessEnv, installRoot: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (/^npm_/i.test(k) || k === 'INIT_CWD') continue;
    out[k] = v;
  }
  if (out.PATH !== undefined) {
    const root = installRoot.endsWith(sep) ? installRoot : installRoot + sep;
    const ancestorBins = new Set<string>();
    for (let dir = installRoot; ; dir = dirname(dir)) {
      ancestorBins.add(join(dir, 'node_modules', '.bin'));
      if (dirname(dir) === dir) break;
    }
    out.PATH = out.PATH.split(':')
      .filter((p) => !ancestorBins.has(p.replace(/\/+$/, '')))
      .filter((p) => !(p.startsWith(root) && (p.endsWith(`${sep}node_modules${sep}.bin`) || p.endsWith(`${sep}node-gyp-bin`))))
      .filter((p) => !/[\\/]npm[\\/](node_modules[\\/]@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin|bin[\\/]node-gyp-bin)$/.test(p))
      .join(':');
  }
  return out;
}
