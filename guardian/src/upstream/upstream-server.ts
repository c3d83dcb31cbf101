import { join } from 'node:path';
import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { HoldfastError, SegmentLog, type SandboxSpec, type UpstreamSpec, type UpstreamState } from '@holdfast/shared/protocol';
import { GUARDIAN_BUILD } from '../build-id.js';
import { UpstreamLimits } from '../constants.js';
import { log } from '../log.js';
import { programFiles, sandboxLaunch, withVisibleFiles } from '../sandbox-launch.js';
import { GroupStdioTransport } from './stdio-transport.js';

/** What an {@link UpstreamServer} needs from the session. */
export interface UpstreamDeps {
  /** `sessions/<gid>`: stderr logs go to `mcp/<name>/stderr/`. */
  sessionDir: string;
  /** The guardian's environment (with `HOLDFAST_SESSION`): the base of a stdio server's. */
  baseEnv: Record<string, string>;
  /** Default working directory (the workspace root). */
  cwd: string;
  /**
   * The session's sandbox (issue 17): a stdio server starts inside the same one as the shell
   * (no write outside the workspace, no network with `network: off`). Absent: unconfined.
   */
  sandbox?: SandboxSpec;
}

/** Upstream progress of one call. */
export type ProgressSink = (p: { progress: number; total?: number; message?: string }) => void;

/** Options of one `tools/call`. */
export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: ProgressSink;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/**
 * One upstream MCP server of the session (issue 13, DESIGN §5.1): started on first use, its MCP
 * client connection (SDK v2 `Client`, either protocol era) kept while the session lives.
 *
 * Crashes: when the process (or HTTP connection) ends while the server is in use, the call that
 * sees it fails with `UPSTREAM_EXITED` (exit status and the last stderr lines). When it ends
 * between calls, the next call gets that error instead, once — so the model learns that state it
 * kept there is gone — and the call after it starts a new instance. A server that cannot be started
 * or initialized gives `UPSTREAM_UNAVAILABLE` (with the stderr tail); the next call tries again.
 */
export class UpstreamServer {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private stdio: GroupStdioTransport | null = null;
  private readonly stderr: SegmentLog | null;
  private readonly st: UpstreamState;
  /** The last instance ended and no call has been told yet. */
  private unreported = false;
  private stopping = false;

  constructor(
    readonly spec: UpstreamSpec,
    private readonly deps: UpstreamDeps,
    starts: number,
  ) {
    const dir = join(deps.sessionDir, 'mcp', spec.name, 'stderr');
    this.stderr = spec.transport === 'stdio' ? new SegmentLog(dir, UpstreamLimits.STDERR_SEGMENT_BYTES, UpstreamLimits.STDERR_SEGMENTS) : null;
    this.st = { name: spec.name, hash: spec.hash, transport: spec.transport, state: 'starting', pid: null, startedAt: null, starts, inflight: 0 };
    if (this.stderr) this.st.stderrLog = dir;
  }

  /** A copy of the server's state. */
  state(): UpstreamState {
    return { ...this.st, ...(this.st.exit ? { exit: { ...this.st.exit, stderrTail: [...this.st.exit.stderrTail] } } : {}) };
  }

  /** Process group of a running stdio server (for the session's kill escalation), else null. */
  get group(): number | null {
    return this.stdio && !this.stdio.exit ? this.stdio.pid : null;
  }

  /** `tools/list`, every page, always from the server (never a cache). */
  async listTools(signal: AbortSignal): Promise<Record<string, unknown>[]> {
    const client = await this.connect(signal);
    try {
      // Plain requests, page by page: the SDK's cached listTools() costs more than the request itself.
      const tools: Record<string, unknown>[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < UpstreamLimits.LIST_MAX_PAGES; page++) {
        const r = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, { signal, timeout: UpstreamLimits.LIST_TIMEOUT_MS });
        tools.push(...(r.tools as unknown as Record<string, unknown>[]));
        cursor = r.nextCursor;
        if (cursor === undefined) return tools;
      }
      throw new HoldfastError('UPSTREAM_ERROR', `upstream MCP server "${this.spec.name}" paged tools/list more than ${UpstreamLimits.LIST_MAX_PAGES} times`, { retryable: false });
    } catch (err) {
      throw await this.callError(err, 'tools/list');
    }
  }

  /**
   * `tools/call` on the live connection; the result comes back as the server sent it. Cancelling
   * `signal` sends `notifications/cancelled` upstream; upstream progress goes to `onProgress`.
   * @throws HoldfastError UPSTREAM_EXITED, UPSTREAM_UNAVAILABLE, UPSTREAM_ERROR (a JSON-RPC error
   *   from the server), TIMEOUT, CANCELLED.
   */
  async callTool(tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<Record<string, unknown>> {
    const client = await this.connect(opts.signal);
    this.st.inflight++;
    try {
      const result = await client.request(
        { method: 'tools/call', params: { name: tool, arguments: args } },
        {
          signal: opts.signal,
          timeout: opts.timeoutMs,
          resetTimeoutOnProgress: true,
          ...(opts.onProgress ? { onprogress: (p: { progress: number; total?: number; message?: string }) => opts.onProgress!({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) }) } : {}),
        },
      );
      return result as unknown as Record<string, unknown>;
    } catch (err) {
      throw await this.callError(err, `tools/call ${tool}`);
    } finally {
      this.st.inflight--;
    }
  }

  /** Ends the server (client closed, process group killed); no crash is reported for it. */
  async stop(): Promise<void> {
    this.stopping = true;
    const client = this.client;
    this.client = null;
    try {
      await client?.close();
    } catch {
      // closing anyway
    }
    await this.stdio?.close();
    this.stderr?.close();
    if (this.st.state === 'running' || this.st.state === 'starting') {
      this.st.state = 'exited';
      this.st.exit = { code: null, signal: null, at: Date.now(), reason: 'stopped by holdfast', stderrTail: [] };
    }
  }

  // ---- connection --------------------------------------------------------------------------------

  private connect(signal: AbortSignal): Promise<Client> {
    if (this.client && this.st.state === 'running') return Promise.resolve(this.client);
    if (this.unreported) {
      this.unreported = false;
      return Promise.reject(this.exitedError());
    }
    this.connecting ??= this.start(signal).finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async start(signal: AbortSignal): Promise<Client> {
    const spec = this.spec;
    this.st.state = 'starting';
    this.st.starts++;
    delete this.st.exit;
    const client = new Client(
      { name: 'holdfast', version: GUARDIAN_BUILD },
      { capabilities: {}, versionNegotiation: { mode: spec.era === 'modern' ? { pin: '2026-07-28' } : spec.era } },
    );
    let transport: GroupStdioTransport | StreamableHTTPClientTransport;
    if (spec.transport === 'stdio') {
      const env = { ...this.deps.baseEnv, ...(spec.env ?? {}) };
      const cwd = spec.cwd ?? this.deps.cwd;
      const args = spec.args ?? [];
      const sb = this.deps.sandbox;
      // The program, its interpreter and script stay visible (read-only) inside: a Node under /tmp
      // would be hidden by bwrap's private /tmp.
      const launch = sandboxLaunch(sb && withVisibleFiles(sb, programFiles(spec.command!, args, env.PATH, cwd)), cwd, spec.command!, args);
      const stdio = new GroupStdioTransport({ command: launch.file, args: launch.args, env, cwd, stderr: this.stderr! });
      this.stdio = stdio;
      transport = stdio;
      void stdio.exited.then((e) => {
        if (this.stdio === stdio) this.ended(`exited (code ${e.code}, signal ${e.signal})`, e.code, e.signal);
      });
    } else {
      transport = new StreamableHTTPClientTransport(new URL(spec.url!), { requestInit: { headers: spec.headers ?? {} } });
      client.onclose = () => {
        if (this.client === client) this.ended('connection closed', null, null);
      };
    }
    try {
      await client.connect(transport, { signal, timeout: UpstreamLimits.CONNECT_TIMEOUT_MS });
    } catch (err) {
      const pid = this.stdio?.pid ?? null;
      try {
        await client.close();
      } catch {
        // failed anyway
      }
      if (this.stdio) await this.stdio.close();
      const exit = this.stdio?.exit ?? null;
      const tail = this.stderrTail();
      this.st.state = 'failed';
      this.st.pid = null;
      this.st.exit = { code: exit?.code ?? null, signal: exit?.signal ?? null, at: Date.now(), reason: `start failed: ${errorText(err)}`, stderrTail: tail };
      this.unreported = false;
      log(`upstream ${spec.name}: start failed: ${errorText(err)}`);
      if (signal.aborted) throw new HoldfastError('CANCELLED', `starting upstream MCP server "${spec.name}" was cancelled`);
      throw new HoldfastError('UPSTREAM_UNAVAILABLE', `upstream MCP server "${spec.name}" could not be started${pid ? ` (pid ${pid}${exit ? `, exit code ${exit.code}, signal ${exit.signal}` : ''})` : ''}: ${errorText(err)}${tailText(tail)}`, {
        retryable: true,
        details: { server: spec.name, pid, exit_code: exit?.code ?? null, signal: exit?.signal ?? null, stderr_tail: tail },
      });
    }
    deferResponses(transport);
    this.client = client;
    this.st.state = 'running';
    this.st.pid = this.stdio?.pid ?? null;
    this.st.startedAt = Date.now();
    const version = client.getNegotiatedProtocolVersion();
    if (version) this.st.protocolVersion = version;
    const info = client.getServerVersion();
    if (info) this.st.serverInfo = { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) };
    const instructions = client.getInstructions();
    if (instructions) this.st.instructions = instructions.slice(0, UpstreamLimits.INSTRUCTIONS_MAX_CHARS);
    log(`upstream ${spec.name}: running${this.st.pid ? ` pid ${this.st.pid}` : ''}, protocol ${version ?? '?'}`);
    return client;
  }

  /** The process or connection ended. */
  private ended(reason: string, code: number | null, signal: string | null): void {
    if (this.st.state !== 'running') return;
    this.client = null;
    this.st.state = 'exited';
    this.st.exit = { code, signal, at: Date.now(), reason: this.stopping ? 'stopped by holdfast' : reason, stderrTail: this.stderrTail() };
    if (!this.stopping) {
      this.unreported = true;
      log(`upstream ${this.spec.name} (pid ${this.st.pid}): ${reason}`);
    }
  }

  // ---- errors ------------------------------------------------------------------------------------

  /** Maps a failed request: a crash mid-call is UPSTREAM_EXITED for this call (and reported). */
  private async callError(err: unknown, what: string): Promise<HoldfastError> {
    if (err instanceof HoldfastError) return err;
    if (err instanceof ProtocolError) {
      return new HoldfastError('UPSTREAM_ERROR', `upstream MCP server "${this.spec.name}" answered ${what} with error ${err.code}: ${err.message}`, {
        retryable: false,
        details: { server: this.spec.name, rpc_code: err.code, ...(err.data !== undefined ? { rpc_data: err.data } : {}) },
      });
    }
    const closed = err instanceof SdkError && (err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected || err.code === SdkErrorCode.SendFailed);
    if (closed || this.st.state !== 'running') {
      // Give the process's exit status a moment to arrive.
      const until = Date.now() + UpstreamLimits.EXIT_SETTLE_MS;
      while (this.st.state === 'running' && Date.now() < until) await delay(20);
      if (this.st.state !== 'running') {
        this.unreported = false;
        return this.exitedError();
      }
    }
    if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
      return new HoldfastError('TIMEOUT', `upstream MCP server "${this.spec.name}" did not answer ${what} in time`, { retryable: true, details: { server: this.spec.name } });
    }
    if (isAbort(err)) return new HoldfastError('CANCELLED', `${what} on upstream MCP server "${this.spec.name}" was cancelled`);
    return new HoldfastError('UPSTREAM_ERROR', `${what} on upstream MCP server "${this.spec.name}" failed: ${errorText(err)}`, { retryable: false, details: { server: this.spec.name } });
  }

  private exitedError(): HoldfastError {
    const e = this.st.exit;
    const tail = e?.stderrTail ?? [];
    const status = e ? `${e.reason}` : 'ended';
    return new HoldfastError('UPSTREAM_EXITED', `upstream MCP server "${this.spec.name}"${this.st.pid ? ` (pid ${this.st.pid})` : ''} ${status}; anything it kept in memory is gone — the next call starts it again${tailText(tail)}`, {
      retryable: true,
      details: { server: this.spec.name, pid: this.st.pid, exit_code: e?.code ?? null, signal: e?.signal ?? null, stderr_tail: tail },
    });
  }

  /** The last lines of the server's stderr log. */
  private stderrTail(): string[] {
    const log = this.stderr;
    if (!log || log.end === 0) return [];
    const from = Math.max(0, log.end - UpstreamLimits.STDERR_TAIL_BYTES);
    const text = log.read(from, UpstreamLimits.STDERR_TAIL_BYTES).data.toString('utf8');
    const lines = text.split(/\r?\n/).filter((l) => l.trim().length > 0);
    if (from > 0 && lines.length > 1) lines.shift(); // likely cut in the middle
    return lines.slice(-UpstreamLimits.STDERR_TAIL_LINES);
  }
}

/**
 * The SDK client dispatches notifications a microtask later than responses, so a request's last
 * `notifications/progress`, read in the same chunk as its response, reaches a progress handler the
 * response has already removed (and is dropped). Responses are delivered one macrotask later, after
 * the notifications before them.
 */
function deferResponses(transport: { onmessage?: ((message: JSONRPCMessage, extra?: never) => void) | undefined }): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if ('id' in message && !('method' in message)) setImmediate(() => deliver(message, extra));
    else deliver(message, extra);
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function tailText(tail: string[]): string {
  return tail.length > 0 ? `; last stderr lines:\n${tail.join('\n')}` : '';
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || /abort/i.test(err.message));
}
