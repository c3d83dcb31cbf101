import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { after, before } from 'node:test';
import { CLI_MAIN, isAlive, pollUntil, TestHome } from './home.js';

/**
 * Helpers for MCP scenario tests: a real `holdfast serve` process in a {@link TestHome}, the
 * official v2 client over HTTP (either protocol era) or stdio, and raw HTTP requests for the
 * refusals of DESIGN §6.2 (node:http, so Host and every other header go out exactly as given).
 */

/** The protocol-era choice of the v2 client (`versionNegotiation.mode`). */
export type EraMode = 'legacy' | 'auto' | { pin: string };

/** A running `holdfast serve --http` process. */
export class AdapterProcess {
  stdout = '';
  stderr = '';

  constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  /** `kill -9` the adapter and wait until it is gone. */
  async kill9(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await pollUntil('adapter to die', () => !isAlive(this.pid), 5000);
  }

  /** SIGTERM, then SIGKILL after 5 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  }
}

/** Environment of processes started for `home` (keeps the test run's leak marker). */
export function homeEnv(home: TestHome, extra: Record<string, string> = {}): Record<string, string> {
  return home.env(extra);
}

/** `serve` registers the folder it starts in by default (issue 8): tests register their own workspaces. */
function noCwdRegistration(args: string[]): string[] {
  return args.includes('--register-cwd') || args.includes('--no-register-cwd') ? args : [...args, '--no-register-cwd'];
}

/**
 * Starts `holdfast serve --http --bind 127.0.0.1:0 …args` and waits for its endpoint line. The
 * current folder is not registered unless `args` asks for it (`--register-cwd`).
 * @throws when it exits first (with its stderr) or prints nothing within 20 s.
 */
export function startAdapter(home: TestHome, args: string[] = [], extraEnv: Record<string, string> = {}): Promise<AdapterProcess> {
  const child = spawn(process.execPath, [CLI_MAIN, 'serve', '--http', '--bind', '127.0.0.1:0', ...noCwdRegistration(args)], {
    env: homeEnv(home, extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`holdfast serve printed no endpoint within 20 s; stderr: ${err}`));
    }, 20_000);
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /serving MCP at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const a = new AdapterProcess(child, m[1]!);
        child.stdout!.removeAllListeners('data');
        child.stdout!.on('data', (x: Buffer) => (a.stdout += x.toString()));
        child.stderr!.on('data', (x: Buffer) => (a.stderr += x.toString()));
        a.stdout = out;
        a.stderr = err;
        resolve(a);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`holdfast serve exited (${code ?? signal}) before serving; stderr: ${err}`));
    });
  });
}

/** Runs `holdfast serve …args` expecting it to refuse to start: resolves with its exit code and stderr. */
export function serveRefusal(home: TestHome, args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [CLI_MAIN, 'serve', ...noCwdRegistration(args)], { env: homeEnv(home, extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`holdfast serve ${args.join(' ')} did not refuse within 20 s (stdout: ${stdout})`));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stderr, stdout });
    });
  });
}

/** The generated owner token of a home (`<home>/token`). */
export function ownerToken(home: TestHome): string {
  return readFileSync(home.layout.token, 'utf8').trim();
}

/** Connects the official v2 client over HTTP in the given era. */
export async function httpClient(url: string, token: string | null, mode: EraMode, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'holdfast-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  const all = token === null ? headers : { Authorization: `Bearer ${token}`, ...headers };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: all } }));
  return client;
}

/** Connects the official v2 client to `holdfast serve --stdio …args` (a child of the transport). */
export async function stdioClient(home: TestHome, args: string[] = [], mode: EraMode = 'legacy'): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_MAIN, 'serve', '--stdio', ...args], env: homeEnv(home), stderr: 'pipe' });
  const client = new Client({ name: 'holdfast-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return { client, transport };
}

/**
 * A started daemon and one session opened through a stdio adapter (the official client), for
 * scenario files that share one fixture. {@link useStdioSession} wires it into a suite.
 */
export class StdioSessionFixture {
  client!: Client;
  rs = '';
  private adapterPid = 0;

  constructor(readonly h: TestHome) {}

  async open(): Promise<void> {
    await this.h.startDaemon();
    const c = await stdioClient(this.h);
    this.client = c.client;
    this.adapterPid = c.transport.pid!;
    this.rs = (await openSession(this.client, { workspace: 'ws' })).id;
  }

  async close(): Promise<void> {
    await this.client?.close().catch(() => undefined);
    if (this.adapterPid && isAlive(this.adapterPid)) process.kill(this.adapterPid, 'SIGKILL');
  }
}

/**
 * Registers `before`/`after` hooks of the current suite: a new home, its daemon and a stdio session
 * (then `setup`), cleaned up after. Read `client` and `rs` inside tests.
 */
export function useStdioSession(setup: (h: TestHome) => Promise<void> = async () => undefined): StdioSessionFixture {
  const f = new StdioSessionFixture(new TestHome());
  before(async () => {
    await f.open();
    await setup(f.h);
  });
  after(async () => {
    await f.close();
    await f.h.cleanup();
  });
  return f;
}

/**
 * Registers `before`/`after` hooks of the current suite for a scenario that starts its own
 * adapters and clients on `h`: the daemon starts before the suite; after it every client pushed to
 * `clients` is closed, every adapter pushed to `adapters` is killed (SIGKILL) and the home is
 * cleaned up.
 */
export function useAdapters(h: TestHome): { adapters: AdapterProcess[]; clients: Client[] } {
  const adapters: AdapterProcess[] = [];
  const clients: Client[] = [];
  before(() => h.startDaemon());
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const a of adapters) await a.kill9();
    await h.cleanup();
  });
  return { adapters, clients };
}

/** The §6.3 envelope of a tool result. */
export interface Envelope {
  status: string;
  type: string;
  context: Record<string, string>;
  data: Record<string, unknown> | null;
  error: { code: string; message: string; retryable: boolean } | null;
  hints: Record<string, unknown>;
  actions: { tool: string; arguments: Record<string, unknown>; reason: string }[];
}

/** Calls a tool and returns its envelope and `isError`. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ env: Envelope; isError: boolean; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as { structuredContent?: unknown; isError?: boolean; content?: { type: string; text?: string }[] };
  const text = (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
  return { env: r.structuredContent as Envelope, isError: r.isError === true, text };
}

/** Opens (or resumes) a session and returns its id and shell pid. */
export async function openSession(client: Client, args: Record<string, unknown>): Promise<{ id: string; shellPid: number; env: Envelope }> {
  const { env, isError } = await callTool(client, 'session', args);
  if (isError) throw new Error(`session ${JSON.stringify(args)} failed: ${JSON.stringify(env.error)}`);
  return { id: env.data!.remote_session_id as string, shellPid: env.data!.shell_pid as number, env };
}

/** Runs a foreground command and returns its output (trimmed) and exit code. */
export async function run(client: Client, id: string, command: string, extra: Record<string, unknown> = {}): Promise<{ output: string; exitCode: number | null; env: Envelope }> {
  const { env, isError } = await callTool(client, 'execute', { remote_session_id: id, command, ...extra });
  if (isError) throw new Error(`execute ${command} failed: ${JSON.stringify(env.error)}`);
  return { output: String(env.data!.output ?? '').trim(), exitCode: (env.data!.exit_code as number | null) ?? null, env };
}

/** A raw HTTP answer. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Milliseconds from sending to the end of the answer. */
  elapsedMs: number;
}

/** Options of {@link rawRequest}. */
export interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Path and query instead of the URL's (e.g. `/mcp?token=…`). */
  path?: string;
  timeoutMs?: number;
}

/** Sends one raw HTTP request with exactly the given headers (Host included when set). */
export function rawRequest(url: string, opts: RawOptions = {}): Promise<RawResponse> {
  const u = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: opts.path ?? u.pathname + u.search, method: opts.method ?? 'POST', headers: opts.headers ?? {}, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, elapsedMs: performance.now() - started }));
        res.on('error', reject);
      },
    );
    req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(new Error('raw request timed out')));
    req.on('error', reject);
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

/** JSON-RPC headers of a 2025-era POST. */
export function legacyHeaders(token: string | null, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
  };
}

/** A 2025-era `initialize` body. */
export function initializeBody(id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
}

/** A 2026-07-28 request: body with the per-request `_meta` envelope, plus the required headers. */
export function modernRequest(token: string | null, id: number, method: string, params: Record<string, unknown> = {}, name?: string): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      },
    },
  });
  const headers = legacyHeaders(token, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) });
  return { headers, body };
}

/** Parses a JSON or SSE (`data:` lines) MCP answer into its JSON-RPC messages. */
export function rpcMessages(r: RawResponse): Record<string, unknown>[] {
  const type = String(r.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    return r.body
      .split('\n')
      .filter((l) => l.startsWith('data:') && l.slice(5).trim().length > 0)
      .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
  }
  return r.body.length > 0 ? [JSON.parse(r.body) as Record<string, unknown>] : [];
}
