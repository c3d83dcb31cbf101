// Bundles the guardian into one ESM file (DESIGN §1): node-pty stays external (native), every
// other dependency — @holdfast/shared, msgpackr, @xterm/* — is inside, so a guardian that lives
// for days never loads newer code from disk. The build string is stamped in at bundle time.
//
// The desktop driver (issue 15) is a second bundle, `dist/desktop-driver-<content hash>.mjs`
// (sharp external: native); its file name is stamped into the guardian, so a guardian always
// starts the driver built with it. Older driver bundles stay for the guardians that still run
// them and are removed once older than DRIVER_KEEP_DAYS or beyond the DRIVER_KEEP_NEWEST newest.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

const DRIVER_KEEP_DAYS = 30;
const DRIVER_KEEP_NEWEST = 8;
const dist = new URL('./dist/', import.meta.url).pathname;

let buildString = '0.0.0+unknown';
try {
  const info = JSON.parse(readFileSync(new URL('../shared/dist/build-info.json', import.meta.url), 'utf8'));
  buildString = `${info.version}+${String(info.commit).slice(0, 12)}`;
} catch {
  const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
  buildString = `${version}+unknown`;
}

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  define: {
    __HOLDFAST_GUARDIAN_BUILD__: JSON.stringify(buildString),
    // msgpackr's native string extractor costs ~6 MB RSS per process and only speeds up decoding
    // of string-heavy frames; guardian and driver traffic is small requests and binary data.
    'process.env.MSGPACKR_NATIVE_ACCELERATION_DISABLED': '"true"',
  },
  banner: { js: "import { createRequire as __hfCreateRequire } from 'node:module'; const require = __hfCreateRequire(import.meta.url);" },
  logLevel: 'warning',
};

const driver = await build({
  ...common,
  entryPoints: { 'desktop-driver': new URL('./src/desktop-driver/main.ts', import.meta.url).pathname },
  outdir: dist,
  entryNames: '[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  external: ['sharp'],
  metafile: true,
});
const driverFile = basename(Object.keys(driver.metafile.outputs).find((f) => f.endsWith('.mjs')));

await build({
  ...common,
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: join(dist, 'guardian.mjs'),
  external: ['node-pty'],
  define: { ...common.define, __HOLDFAST_DRIVER_BUNDLE__: JSON.stringify(driverFile) },
});

const cutoff = Date.now() - DRIVER_KEEP_DAYS * 86_400_000;
const old = readdirSync(dist)
  .filter((n) => /^desktop-driver-[A-Za-z0-9]+\.mjs$/.test(n) && n !== driverFile)
  .map((n) => ({ n, t: statSync(join(dist, n)).mtimeMs }))
  .sort((a, b) => b.t - a.t);
old.forEach(({ n, t }, i) => {
  if (t < cutoff || i >= DRIVER_KEEP_NEWEST - 1) rmSync(join(dist, n), { force: true });
});
