import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/**
 * Peer MCP servers from npm (bench-only dev dependencies) over their stdio transports:
 * `@modelcontextprotocol/server-filesystem` and `@wonderwhy-er/desktop-commander`. Each runs with a
 * throw-away HOME (DesktopCommander writes its config there; its telemetry is switched off) and
 * a plain system PATH (notes: DC runs `python3 --version` on every call; a pyenv shim would make
 * that 10× slower and the comparison unfair to it).
 */
const require = createRequire(import.meta.url);
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

function pkgDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

export interface Peer {
  name: string;
  client: Client;
  close(): Promise<void>;
}

async function connect(name: string, args: string[], env: Record<string, string>): Promise<Peer> {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'holdfast-bench', version: '1.0.0' });
  await client.connect(transport);
  return { name, client, close: () => client.close() };
}

/** `server-filesystem` allowed to `root`. */
export function startServerFilesystem(root: string): Promise<Peer> {
  const entry = join(pkgDir('@modelcontextprotocol/server-filesystem'), 'dist', 'index.js');
  return connect('server-filesystem', [entry, root], { PATH: SYSTEM_PATH, HOME: mkdtempSync('/tmp/hfb-home-') });
}

/** DesktopCommander with telemetry off, allowed to `root`. */
export function startDesktopCommander(root: string): Promise<Peer> {
  const home = mkdtempSync('/tmp/hfb-home-');
  mkdirSync(join(home, '.claude-server-commander'), { recursive: true });
  writeFileSync(join(home, '.claude-server-commander', 'config.json'), JSON.stringify({ telemetryEnabled: false, allowedDirectories: [root], blockedCommands: [], defaultShell: 'bash' }));
  const entry = join(pkgDir('@wonderwhy-er/desktop-commander'), 'dist', 'index.js');
  return connect('DesktopCommander', [entry], { PATH: SYSTEM_PATH, HOME: home });
}
