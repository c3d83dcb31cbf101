import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The panel page's files (issue 16 §2): its HTML, script and style sheet. */
export interface PanelAssets {
  html: string;
  js: string;
  css: string;
}

/**
 * Stamped into the driver bundle by `guardian/bundle.mjs` (built from `guardian/page/`), so a driver
 * that runs for days serves the page built with it and never reads newer files from disk, and the
 * page works offline (nothing is fetched from anywhere but the driver).
 */
declare const __HOLDFAST_PANEL_ASSETS__: PanelAssets | undefined;

/** The page assets: those stamped into the bundle, else the built files beside it (unbundled runs). */
export function panelAssets(): PanelAssets {
  if (typeof __HOLDFAST_PANEL_ASSETS__ === 'object' && __HOLDFAST_PANEL_ASSETS__ !== null) return __HOLDFAST_PANEL_ASSETS__;
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'page');
  const read = (n: string): string => readFileSync(join(dir, n), 'utf8');
  return { html: read('panel.html'), js: read('panel.js'), css: read('panel.css') };
}
