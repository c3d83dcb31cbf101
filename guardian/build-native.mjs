// Builds the Landlock helper (issue 17, docs/sandbox.md): guardian/native/landlock-exec.c →
// guardian/dist/holdfast-landlock, with the C compiler the native addons already need (`cc`, or
// $CC). Runs as the guardian workspace's `install` script (npm ci) and before each bundle, and
// only compiles when the binary is missing or older than its source. A machine without a compiler
// gets a warning, not a failed install: the Landlock mode is then unavailable and `holdfast
// doctor` says so (a session that requires a sandbox is refused, never run unconfined).
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';

const src = new URL('./native/landlock-exec.c', import.meta.url).pathname;
const out = new URL('./dist/holdfast-landlock', import.meta.url).pathname;
const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};

if (process.platform !== 'linux') {
  console.warn('holdfast: the Landlock helper is Linux-only; not built');
} else if (mtime(out) < mtime(src)) {
  mkdirSync(new URL('./dist/', import.meta.url), { recursive: true });
  const cc = process.env.CC || 'cc';
  try {
    execFileSync(cc, ['-O2', '-Wall', '-Wextra', '-o', out, src], { stdio: 'inherit' });
  } catch (err) {
    console.warn(`holdfast: could not build the Landlock helper with ${cc} (${err.message.split('\n')[0]}); sandbox mode "landlock" will be unavailable`);
  }
}
