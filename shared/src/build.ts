import { readFileSync } from 'node:fs';

/**
 * Build identity of this tree: package version and git commit, written to
 * `shared/dist/build-info.json` by `npm run build` (see shared/write-build-info.mjs). Reported by
 * `runtime_read`, `doctor` and every hello frame.
 */
export interface BuildInfo {
  version: string;
  commit: string;
  builtAt: string;
}

let cached: BuildInfo | undefined;

/** Reads the build info once; unknown fields fall back to `0.0.0` / `unknown`. */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  try {
    cached = JSON.parse(readFileSync(new URL('./build-info.json', import.meta.url), 'utf8')) as BuildInfo;
  } catch {
    cached = { version: '0.0.0', commit: 'unknown', builtAt: '' };
  }
  return cached;
}

/** `version+commit`, the build string sent in hello frames. */
export function buildString(): string {
  const b = buildInfo();
  return `${b.version}+${b.commit.slice(0, 12)}`;
}
