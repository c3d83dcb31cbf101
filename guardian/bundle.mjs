// Bundles the guardian into one ESM file (DESIGN §1): node-pty stays external (native), every
// other dependency — @holdfast/shared, msgpackr, @xterm/*, the MCP client — is inside, so a guardian that lives
// for days never loads newer code from disk. The build string is stamped in at bundle time.
//
// The desktop driver (issue 15) is a second bundle, `dist/desktop-driver-<content hash>.mjs`
// (sharp external: native); its file name is stamped into the guardian, so a guardian always
// starts the driver built with it. Older driver bundles stay for the guardians that still run
// them and are removed once older than DRIVER_KEEP_DAYS or beyond the DRIVER_KEEP_NEWEST newest.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

// The MCP client (issue 13: upstream servers) is bundled into the guardian too, minified on its own
// first: it is initialised only when a session first uses an upstream server, but every guardian
// parses the whole file, so its size is idle memory. The guardian's own code stays readable.
const MCP_CLIENT_EXPORTS = ['Client', 'ProtocolError', 'ReadBuffer', 'SdkError', 'SdkErrorCode', 'serializeMessage', 'StreamableHTTPClientTransport'];
const vendor = await build({
  stdin: { contents: `export { ${MCP_CLIENT_EXPORTS.join(', ')} } from '@modelcontextprotocol/client';`, resolveDir: new URL('.', import.meta.url).pathname, loader: 'js' },
  bundle: true,
  write: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const mcpClientVendor = {
  name: 'mcp-client-vendor',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/client$/ }, () => ({ path: 'mcp-client', namespace: 'vendor' }));
    b.onLoad({ filter: /.*/, namespace: 'vendor' }, () => ({ contents: vendor.outputFiles[0].text, loader: 'js' }));
  },
};

// The desktop panel (issue 16): the page's script (guardian/page/, type-checked by `tsc -p page`)
// is bundled for the browser and stamped into the driver with its HTML and CSS, so a driver serves
// the page built with it and nothing is fetched from anywhere else. The MCP Apps view is one
// self-contained HTML file (its script and style inline), served by the daemon as
// `ui://holdfast/desktop.html`.
const pageDir = new URL('./page/', import.meta.url).pathname;
const browserScript = async (entry) =>
  (await build({ entryPoints: [join(pageDir, entry)], bundle: true, write: false, platform: 'browser', format: 'iife', target: 'chrome110', minify: true, legalComments: 'none', logLevel: 'warning' })).outputFiles[0].text;
const panelAssets = {
  html: readFileSync(join(pageDir, 'panel.html'), 'utf8'),
  js: await browserScript('panel.ts'),
  css: readFileSync(join(pageDir, 'panel.css'), 'utf8'),
};
mkdirSync(join(dist, 'page'), { recursive: true });
writeFileSync(join(dist, 'page', 'panel.html'), panelAssets.html);
writeFileSync(join(dist, 'page', 'panel.js'), panelAssets.js);
writeFileSync(join(dist, 'page', 'panel.css'), panelAssets.css);
const appJs = (await browserScript('app.ts')).replace(/<\/script/gi, '<\\/script');
const appHtml = readFileSync(join(pageDir, 'app.html'), 'utf8')
  .replace('/*__APP_CSS__*/', () => readFileSync(join(pageDir, 'app.css'), 'utf8'))
  .replace('/*__APP_JS__*/', () => appJs);
writeFileSync(join(dist, 'desktop-app.html'), appHtml);

const driver = await build({
  ...common,
  entryPoints: { 'desktop-driver': new URL('./src/desktop-driver/main.ts', import.meta.url).pathname },
  outdir: dist,
  entryNames: '[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  external: ['sharp', 'bufferutil', 'utf-8-validate'],
  define: { ...common.define, __HOLDFAST_PANEL_ASSETS__: JSON.stringify(panelAssets) },
  metafile: true,
});
const driverFile = basename(Object.keys(driver.metafile.outputs).find((f) => f.endsWith('.mjs')));

await build({
  ...common,
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: join(dist, 'guardian.mjs'),
  plugins: [mcpClientVendor],
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
