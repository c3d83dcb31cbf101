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

// The MCP client (issue 13: upstream servers) is bundled too, minified on its own first: it is
// initialised only when a session first uses an upstream server, but every guardian parses the
// whole file, so its size is idle memory. The guardian's own code stays readable in stack traces.
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

await build({
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  plugins: [mcpClientVendor],
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
