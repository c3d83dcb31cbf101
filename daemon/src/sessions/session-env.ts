import { sep } from 'node:path';

/**
 * The environment a guardian (and so the session's shell and tasks) starts from: the daemon's
 * own, minus what `npm start` / `npm run` added because of how holdfast itself was launched
 * (decision recorded in docs/sessions.md):
 * - `npm_*` variables (`npm_config_cache`, `npm_lifecycle_event`, `npm_package_*`, …) and
 *   `INIT_CWD` — they describe holdfast's checkout, not the user's project, and e.g. point npm in
 *   the session at holdfast's cache settings;
 * - `PATH` entries npm prepends for run scripts (`…/node_modules/.bin` and npm's `node-gyp-bin`)
 *   that lie inside holdfast's install root, so `tsc` or `eslint` in a session resolve to the
 *   project's or the user's own, never holdfast's.
 * `HOLDFAST_SESSION=<gid>` is added (the process-sweep marker, DESIGN §4.4).
 *
 * @param env the daemon's environment (`process.env`)
 * @param installRoot holdfast's checkout (absolute); PATH entries below it that npm added are dropped
 * @param gid the session's guardian id
 */
export function sessionBaseEnv(env: NodeJS.ProcessEnv, installRoot: string, gid: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (/^npm_/i.test(k) || k === 'INIT_CWD') continue;
    out[k] = v;
  }
  if (out.PATH !== undefined) {
    const root = installRoot.endsWith(sep) ? installRoot : installRoot + sep;
    out.PATH = out.PATH.split(':')
      .filter((p) => !(p.startsWith(root) && (p.endsWith(`${sep}node_modules${sep}.bin`) || p.endsWith(`${sep}node-gyp-bin`))))
      .filter((p) => !/[\\/]npm[\\/](node_modules[\\/]@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin|bin[\\/]node-gyp-bin)$/.test(p))
      .join(':');
  }
  out.HOLDFAST_SESSION = gid;
  return out;
}
