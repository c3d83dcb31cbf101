import { homedir } from 'node:os';
import { basename, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { loadConfig } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import { ensurePrivateHome, homeLayout, resolveHome, type HomeLayout } from '@holdfast/shared/paths';
import { DaemonClient } from '../../daemon-client.js';
import { startServe } from '../../mcp/runner.js';
import { resolveServe, type ServeFlags } from '../../mcp/serve-options.js';
import type { RegisterCommand } from './index.js';

/** Grace for answers still in flight after a stdio client closed stdin, ms. */
const STDIO_DRAIN_MS = 5000;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function positiveInt(flag: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new HoldfastError('BAD_REQUEST', `${flag} must be a positive integer (got ${JSON.stringify(value)})`);
    return Number(value);
  };
}

/** A workspace name from a folder name (DESIGN §2: letters, digits, `.`, `_`, `-`; at most 64). */
export function workspaceNameFor(dir: string): string {
  const name = basename(dir).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
  return name.length > 0 ? name : 'workspace';
}

/** The folder `holdfast serve` was started in: `npm start` runs in the package root, and INIT_CWD is where the user typed it. */
function startFolder(): string {
  return resolve(process.env.INIT_CWD ?? process.cwd());
}

/**
 * Whether `serve` registers the folder it was started in (issue 8: `holdfast serve` in a project
 * serves that project): `--register-cwd` / `--no-register-cwd` decide; by default HTTP serving
 * does, stdio does not (a client launches it from anywhere) unless `--name` asks for it (`named`),
 * and never `/`, the home folder or the runtime home (too wide to be a workspace by accident).
 */
export function shouldRegisterCwd(flag: boolean | undefined, mode: 'http' | 'stdio', dir: string, runtimeHome: string, named = false): { register: boolean; why?: string } {
  if (flag === false) return { register: false };
  if (flag === undefined && mode !== 'http' && !named) return { register: false };
  if (dir === '/' || dir === resolve(homedir()) || dir === resolve(runtimeHome)) {
    return { register: false, why: `not registering ${dir} as a workspace (too wide); run holdfast serve in a project folder or use holdfast workspace register <path>` };
  }
  return { register: true };
}

/**
 * Registers `dir` as a workspace (starting the daemon if needed). When this call started the
 * daemon and the registration fails, the daemon is stopped again (issue 8: a failed start leaves
 * no newly started daemon).
 */
async function registerFolder(layout: HomeLayout, dir: string, name: string | undefined, log: (line: string) => void): Promise<void> {
  const probe = new DaemonClient({ role: 'adapter', home: layout.home, autoStart: false, giveUpMs: 0 });
  const wasRunning = await probe.call('daemon.status', {}).then(() => true, () => false);
  probe.close();
  const client = new DaemonClient({ role: 'adapter', home: layout.home, autoStart: true });
  try {
    const r = await client.call('workspace.register', { path: dir, name: name ?? workspaceNameFor(dir) });
    log(`holdfast: workspace "${r.workspace.name}" → ${r.workspace.path}${r.created ? ' (registered)' : ''}`);
  } catch (err) {
    if (!wasRunning) await client.call('daemon.stop', { kill_sessions: false }, { retry: 'never' }).catch(() => undefined);
    throw err;
  } finally {
    client.close();
  }
}

/**
 * `holdfast serve --http|--stdio` (DESIGN §6, issue 3): resolves flags over `config.yaml`, refuses
 * unsafe set-ups, starts serving, then (HTTP, by default) registers the folder it was started in
 * as a workspace (issue 8), and serves until SIGINT/SIGTERM (HTTP) or until stdin closes (stdio).
 * The endpoint is bound before the daemon is asked for anything, so a refused start (port in use)
 * starts no daemon. In HTTP mode it prints the endpoint and the token file's path on stdout —
 * never the token.
 */
export async function runServe(flags: ServeFlags): Promise<void> {
  const layout = homeLayout(resolveHome());
  const log = (line: string): void => {
    process.stderr.write(line + '\n');
  };
  const homeWarning = ensurePrivateHome(layout.home);
  if (homeWarning) log(`holdfast: ${homeWarning}`);
  const resolved = resolveServe(flags, loadConfig(layout.config), layout);
  for (const w of resolved.warnings) log(`holdfast: ${w}`);
  const name = flags.name;
  if (name !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
    throw new HoldfastError('BAD_REQUEST', `--name must be 1–64 letters, digits, ".", "_" or "-" (got ${JSON.stringify(name)})`);
  }
  const running = await startServe(resolved, layout, log);
  const dir = startFolder();
  if (name !== undefined && flags.registerCwd === false) log('holdfast: --name has no effect with --no-register-cwd');
  const reg = shouldRegisterCwd(flags.registerCwd, resolved.mode, dir, layout.home, name !== undefined);
  if (reg.why) log(`holdfast: ${reg.why}`);
  if (reg.register) {
    try {
      await registerFolder(layout, dir, name, log);
    } catch (err) {
      await running.close();
      throw err;
    }
  }

  let stopping = false;
  const stop = (code: number): void => {
    if (stopping) return;
    stopping = true;
    void running.close().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => stop(0));
  process.once('SIGTERM', () => stop(0));

  if (resolved.mode === 'http') {
    const out: string[] = [`holdfast: serving MCP at ${running.url}`];
    if (resolved.http?.oauth) {
      out.push(`holdfast: OAuth issuer ${resolved.http.oauth.serverUrl ?? new URL(running.url!).origin} (approve a client with the owner password or a code from \`holdfast oauth approve\`)`);
    }
    if (resolved.tokenFile) {
      out.push(`holdfast: bearer token ${resolved.tokenFile.generated ? 'generated in' : 'read from'} ${resolved.tokenFile.path} (send "Authorization: Bearer $(cat ${resolved.tokenFile.path})")`);
    }
    process.stdout.write(out.join('\n') + '\n');
    return;
  }
  log('holdfast: serving MCP on stdio');
  await running.ended;
  const deadline = Date.now() + STDIO_DRAIN_MS;
  while (running.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  stop(0);
}

/** Registers `holdfast serve`. */
export const registerServe: RegisterCommand = (program: Command) => {
  program
    .command('serve')
    .description('serve MCP to remote clients: Streamable HTTP on /mcp (default) or stdio')
    .option('--http', 'serve Streamable HTTP on /mcp (the default)')
    .option('--stdio', 'serve one client on stdin/stdout')
    .option('--bind <host:port>', 'listen address (default 127.0.0.1:8000; config listen.bind/port)')
    .option('--token-file <path>', 'bearer token file, a 0600 regular file (default <home>/token, generated when absent)')
    .option('--principal-config <path>', 'YAML file of principals: name, token_file|token_env, tool_profile|allowed_tools')
    .option('--allowed-host <host>', 'also accept this hostname in Host/Origin (repeatable)', collect)
    .option('--allow-non-loopback', 'allow binding an address other machines can reach')
    .option('--allow-weak-token', 'accept tokens shorter than 32 bytes')
    .option('--allow-query-token', 'accept ?token= in the URL (query strings leak into logs)')
    .option('--max-concurrency <n>', 'requests in flight at most (else 503)', positiveInt('--max-concurrency'))
    .option('--requests-per-minute <n>', 'requests per minute per principal and source address; failed authentications count apart (else 429)', positiveInt('--requests-per-minute'))
    .option('--max-body-bytes <n>', 'largest request body (else 413)', positiveInt('--max-body-bytes'))
    .option('--max-inflight-body-bytes <n>', 'request-body bytes held at once, all requests together (else 503)', positiveInt('--max-inflight-body-bytes'))
    .option('--request-timeout-ms <n>', 'longest a request may take (else 408)', positiveInt('--request-timeout-ms'))
    .addOption(new Option('--tool-profile <name>', 'tools offered: full, coding, read-only, terminal, desktop').choices(['full', 'coding', 'read-only', 'terminal', 'desktop']))
    .option('--allow-tool <name>', 'offer exactly these tools (repeatable; replaces the profile)', collect)
    .addOption(new Option('--session-affinity <mode>', 'how session(action=open) picks a session').choices(['workspace', 'conversation', 'thread']))
    .addOption(
      new Option('--panel <mode>', 'how desktop_open shows a desktop to you: auto (an MCP Apps view, else a browser with a display, else the terminal viewer), apps, browser, terminal or off (config desktop.panel.mode)').choices([
        'auto',
        'apps',
        'browser',
        'terminal',
        'off',
      ]),
    )
    .addOption(new Option('--auth <mode>', 'bearer (default), oauth, dual (bearer or oauth), or open (no token; loopback only, for testing)').choices(['bearer', 'oauth', 'dual', 'open']))
    .option('--oauth-server-url <url>', 'public https origin OAuth clients are given (auth.oauth.server_url)')
    .option('--trust-proxy-headers', 'behind a reverse proxy: take the client address (and, without a server URL, scheme and host) from X-Forwarded-*')
    .addOption(new Option('--test-oauth-allow-private-cimd', 'tests only: fetch client metadata documents from private/loopback addresses').hideHelp())
    .option('--register-cwd', 'register the current folder as a workspace, named after it (the default with --http)')
    .option('--no-register-cwd', 'do not register the current folder')
    .option('--name <name>', 'register the current folder under this workspace name (also with --stdio)')
    .action(async (flags: ServeFlags) => {
      await runServe(flags);
    });
};
