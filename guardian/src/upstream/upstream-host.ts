import { HoldfastError, type McpCallToolParams, McpCallToolResult, McpListToolsResult, UpstreamSpec, UpstreamState } from '@holdfast/shared/protocol';
import { UpstreamLimits } from '../constants.js';
import { log } from '../log.js';
import type { ProgressSink, UpstreamDeps, UpstreamServer } from './upstream-server.js';

type ServerModule = typeof import('./upstream-server.js');

/**
 * The session's upstream MCP servers (issue 13, DESIGN §5.1), one {@link UpstreamServer} per
 * name, started on first use and kept while the session lives. A request whose spec hash differs
 * from the running instance's (the entry was edited, or `${VAR}` expands differently) stops that
 * instance and starts the new one.
 *
 * The MCP client code (SDK v2, bundled into the guardian file) is initialised on first use, so a
 * session that never uses an upstream server pays nothing for it. The guardian stays free of
 * policy: the daemon decides what may be called; this only runs it.
 */
export class UpstreamHost {
  private readonly servers = new Map<string, UpstreamServer>();
  /** Per name: the replacement or first start under way. */
  private readonly swapping = new Map<string, Promise<UpstreamServer>>();
  private impl: Promise<ServerModule> | null = null;
  private closed = false;

  constructor(private readonly deps: UpstreamDeps) {}

  /** Every server this session has used, with its state. */
  status(): UpstreamState[] {
    return [...this.servers.values()].map((s) => s.state());
  }

  /** A `tools/call` is in flight on some server (the session counts as busy). */
  get busy(): boolean {
    for (const s of this.servers.values()) if (s.state().inflight > 0) return true;
    return false;
  }

  /** Process groups of running stdio servers (for the session's kill escalation). */
  groups(): number[] {
    return [...this.servers.values()].map((s) => s.group).filter((g): g is number => g !== null);
  }

  /** `g.mcp.list_tools`. */
  async listTools(spec: UpstreamSpec, signal: AbortSignal): Promise<McpListToolsResult> {
    const server = await this.server(spec);
    const tools = await server.listTools(signal);
    return { tools, upstream: server.state() };
  }

  /** `g.mcp.call_tool`. */
  async callTool(p: McpCallToolParams, signal: AbortSignal, onProgress?: ProgressSink): Promise<McpCallToolResult> {
    const server = await this.server(p.server);
    const result = await server.callTool(p.tool, p.arguments, {
      signal,
      timeoutMs: p.timeoutMs ?? UpstreamLimits.DEFAULT_CALL_TIMEOUT_MS,
      ...(onProgress ? { onProgress } : {}),
    });
    return { result, upstream: server.state() };
  }

  /** Stops every server (the session is ending). Idempotent. */
  async closeAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.servers.values()].map((s) => s.stop().catch((err: unknown) => log(`stopping upstream ${s.spec.name} failed`, err))));
  }

  private async server(spec: UpstreamSpec): Promise<UpstreamServer> {
    for (;;) {
      if (this.closed) throw new HoldfastError('SESSION_EXITED', 'this session is ending; open a new one');
      const pending = this.swapping.get(spec.name);
      if (pending) {
        await pending.catch(() => undefined);
        continue;
      }
      const current = this.servers.get(spec.name);
      if (current && current.spec.hash === spec.hash) return current;
      const swap = this.replace(spec, current).finally(() => this.swapping.delete(spec.name));
      this.swapping.set(spec.name, swap);
      return swap;
    }
  }

  private async replace(spec: UpstreamSpec, old: UpstreamServer | undefined): Promise<UpstreamServer> {
    if (old) {
      log(`upstream ${spec.name}: its entry changed; stopping the old instance`);
      await old.stop();
    }
    this.impl ??= import('./upstream-server.js');
    const { UpstreamServer } = await this.impl;
    const server = new UpstreamServer(spec, this.deps, old ? old.state().starts : 0);
    this.servers.set(spec.name, server);
    return server;
  }
}
