import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs the `chromium` package); tests never download a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags that let headless Chromium run offline on the CI machines (no sandbox as root, no GPU, no
 * background traffic to Google's hosts, which the closed network refuses).
 */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A headless Chromium driven by playwright-core; `close()` ends it and removes its downloads folder. */
export async function launchChromium(): Promise<Browser> {
  const downloads = mkdtempSync(join('/tmp', 'hf-chromium-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, downloadsPath: downloads });
  browser.once('disconnected', () => rmSync(downloads, { recursive: true, force: true }));
  return browser;
}
