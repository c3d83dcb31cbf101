// Bundles the guardian into one ESM file (DESIGN §1): node-pty stays external (native), every
// other dependency — @holdfast/shared, msgpackr, @xterm/* — is inside, so a guardian that lives
// for days never loads newer code from disk. The build string is stamped in at bundle time.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

let buildString = '0.0.0+unknown';
try {
  const info = JSON.parse(readFileSync(new URL('../shared/dist/build-info.json', import.meta.url), 'utf8'));
  buildString = `${info.version}+${String(info.commit).slice(0, 12)}`;
} catch {
  const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
  buildString = `${version}+unknown`;
}

await build({
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: new URL('./dist/guardian.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['node-pty'],
  define: {
    __HOLDFAST_GUARDIAN_BUILD__: JSON.stringify(buildString),
    // msgpackr's native string extractor costs ~6 MB RSS per guardian and only speeds up decoding
    // of string-heavy frames; guardian traffic is small requests and binary output.
    'process.env.MSGPACKR_NATIVE_ACCELERATION_DISABLED': '"true"',
  },
  banner: { js: "import { createRequire as __hfCreateRequire } from 'node:module'; const require = __hfCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
