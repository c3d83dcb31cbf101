/**
 * Build string of this guardian (`<version>+<commit12>`, the same shape as the daemon's
 * `buildString()`), stamped into the bundle by `guardian/bundle.mjs` from
 * `shared/dist/build-info.json`. A guardian lives for days across upgrades, so its build is
 * fixed at bundle time, never read from disk at run time.
 */
declare const __HOLDFAST_GUARDIAN_BUILD__: string | undefined;

export const GUARDIAN_BUILD: string = typeof __HOLDFAST_GUARDIAN_BUILD__ === 'string' ? __HOLDFAST_GUARDIAN_BUILD__ : '0.0.0+dev';
