import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { log } from '../../log.js';

/**
 * A browser command that neither failed nor exited non-zero within this counts as opened, ms (a
 * missing command fails at once; `xdg-open` exits as soon as it handed the file over; a browser
 * started directly keeps running). Short, so `desktop_open` answers at once.
 */
const OPEN_SETTLE_MS = 400;

export interface LaunchResult {
  opened: boolean;
  detail: string | null;
}

/**
 * Opens a page for the person (issue 16 §1) with `command` (default `xdg-open`), without the
 * secret-bearing URL ever appearing in a process's arguments (which other local users can read in
 * `/proc`): the URL goes into a 0600 launcher file in the session's private folder — a page that
 * redirects at once — and the browser is given that file. The file is removed after `ttlMs`
 * (the secret's own lifetime) or when the driver ends.
 *
 * The browser runs in its own session, with the driver's environment minus `HOLDFAST_SESSION`, so
 * ending the holdfast session never kills the person's browser.
 */
export class BrowserLauncher {
  private readonly pending = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly ttlMs: number,
  ) {}

  /** Opens `url` with `command`. */
  open(url: string, command: string[]): Promise<LaunchResult> {
    const argv = command.length > 0 ? command : ['xdg-open'];
    if (argv.length === 1 && argv[0] === 'xdg-open' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
      return Promise.resolve({ opened: false, detail: 'no display: neither DISPLAY nor WAYLAND_DISPLAY is set for holdfastd' });
    }
    const file = join(this.dir, `panel-open-${randomBytes(8).toString('hex')}.html`);
    const attr = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    writeFileSync(file, `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${attr}"><title>holdfast desktop</title><a href="${attr}">Open the holdfast desktop panel</a>\n`, { mode: 0o600 });
    this.pending.add(file);
    setTimeout(() => this.remove(file), this.ttlMs).unref();
    const env = { ...process.env };
    delete env.HOLDFAST_SESSION;
    return new Promise<LaunchResult>((resolve) => {
      let done = false;
      const finish = (r: LaunchResult): void => {
        if (done) return;
        done = true;
        clearTimeout(settle);
        if (!r.opened) this.remove(file);
        resolve(r);
      };
      const settle = setTimeout(() => finish({ opened: true, detail: null }), OPEN_SETTLE_MS);
      try {
        const child = spawn(argv[0]!, [...argv.slice(1), pathToFileURL(file).href], { detached: true, stdio: 'ignore', env });
        child.once('error', (err) => finish({ opened: false, detail: `${argv[0]}: ${err.message}` }));
        child.once('exit', (code, signal) => finish(code === 0 ? { opened: true, detail: null } : { opened: false, detail: `${argv[0]} exited with ${code ?? signal}` }));
        child.unref();
      } catch (err) {
        finish({ opened: false, detail: `${argv[0]}: ${(err as Error).message}` });
      }
    }).then((r) => {
      log(`panel: ${r.opened ? 'opened a browser' : `no browser opened (${r.detail})`}`);
      return r;
    });
  }

  /** Removes every launcher file (the driver is ending). */
  removeAll(): void {
    for (const f of [...this.pending]) this.remove(f);
  }

  private remove(file: string): void {
    this.pending.delete(file);
    rmSync(file, { force: true });
  }
}
