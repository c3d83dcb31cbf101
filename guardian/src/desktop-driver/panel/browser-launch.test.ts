import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BrowserLauncher } from './browser-launch.js';

describe('opening the panel for the person (issue 16 §1)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hf-launch-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const url = 'http://127.0.0.1:1/view/view_x#s=secret-value';
  const l = new BrowserLauncher(dir, 60_000);

  it('hands the browser a 0600 launcher file that redirects to the URL; the URL is in no argument', async () => {
    const out = join(dir, 'argv.txt');
    const r = await l.open(url, ['/bin/sh', '-c', `printf '%s' "$1" > ${out}`, 'sh']);
    assert.deepEqual(r, { opened: true, detail: null });
    const arg = readFileSync(out, 'utf8');
    assert.match(arg, /^file:\/\/.*panel-open-[0-9a-f]+\.html$/);
    assert.doesNotMatch(arg, /secret-value/);
    const file = new URL(arg).pathname;
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, 'utf8'), /http-equiv="refresh" content="0;url=http:\/\/127\.0\.0\.1:1\/view\/view_x#s=secret-value"/);
  });

  it('reports a browser that cannot start or fails (removing its launcher file); removeAll clears the rest', async () => {
    const missing = await l.open(url, ['/nonexistent/browser']);
    assert.equal(missing.opened, false);
    assert.match(missing.detail!, /ENOENT/);
    const failing = await l.open(url, ['false']);
    assert.deepEqual(failing, { opened: false, detail: 'false exited with 1' });
    l.removeAll();
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('panel-open-')), []);
    assert.equal(existsSync(join(dir, 'argv.txt')), true);
  });
});
