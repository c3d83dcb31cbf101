import { buildString } from '@holdfast/shared/build';
import { HoldfastError } from '@holdfast/shared/errors';
import {
  G,
  GEvents,
  ProtocolVersions,
  type CommandRecord,
  type ExecParams,
  type ExecResult,
  type ExitRecord,
  type GuardianStatus,
  type InputParams,
  type InputResult,
  type McpCallToolParams,
  type McpCallToolResult,
  type McpListToolsResult,
  type McpProgressEvent,
  type ReadParams,
  type ReadResult,
  type ShutdownParams,
  type SnapshotParams,
  type SnapshotResult,
  type SpawnParams,
  type TaskRecord,
  type UpstreamSpec,
  type UpstreamState,
  type WaitParams,
  type SecretListResult,
  type SecretPutParams,
  type SecretRequestParams,
  type SecretRequestResult,
  type SecretWaitParams,
  SECRETS_FEATURE,
  UPSTREAM_MCP_FEATURE,
} from '@holdfast/shared/protocol';
import { assertOwnSocket } from '@holdfast/shared/run-dir';
import { dialPeer, type RpcPeer } from '@holdfast/shared/wire';

/** `g.input` calls sent to each guardian by this daemon (survives reconnects), by guardian id. */
const inputsSent = new Map<string, number>();

/** Extra time granted on top of a guardian-side wait before the link gives up, ms. */
const WAIT_SLACK_MS = 5000;

export interface LinkEvents {
  onDone?: (rec: CommandRecord | TaskRecord) => void;
  /** The foreground command's `awaitingInput` changed (`g.awaiting`). */
  onAwaiting?: (rec: CommandRecord) => void;
  onExit?: (rec: ExitRecord) => void;
  onClose?: () => void;
}

/**
 * The daemon's client of one guardian (DESIGN §3 guardian protocol): a typed wrapper over the
 * RPC peer. Every method maps to one guardian method; deadlines include the guardian-side wait.
 * @throws HoldfastError `GUARDIAN_UNAVAILABLE` (retryable) when the connection is gone.
 */
export class GuardianLink {
  /** Progress listeners of running `g.mcp.call_tool` requests, by progress id. */
  private readonly progress = new Map<string, (p: Omit<McpProgressEvent, 'progressId'>) => void>();
  private nextProgress = 1;

  private constructor(
    readonly gid: string,
    private readonly peer: RpcPeer,
  ) {}

  /**
   * Dials a guardian's socket and completes the handshake.
   * @throws HoldfastError `NOT_CONNECTED`/`TIMEOUT` when it does not answer, `PROTOCOL_VERSION`,
   *   `BAD_REQUEST` when the socket or its folder is not ours alone.
   */
  static async connect(gid: string, socketPath: string, timeoutMs: number, events: LinkEvents): Promise<GuardianLink> {
    assertOwnSocket(socketPath); // a private run folder and a socket of ours (issue 18)
    const peer = await dialPeer(socketPath, {
      hello: { proto: ProtocolVersions.GUARDIAN, role: 'daemon', build: buildString(), pid: process.pid, features: [] },
      timeoutMs,
    });
    const welcome = peer.remote;
    if (!welcome || !ProtocolVersions.GUARDIAN_SUPPORTED.includes(welcome.proto)) {
      peer.close();
      throw new HoldfastError('PROTOCOL_VERSION', `guardian ${gid} speaks protocol ${welcome?.proto}; this daemon speaks ${ProtocolVersions.GUARDIAN_SUPPORTED.join(', ')}`);
    }
    const link = new GuardianLink(gid, peer);
    peer.on('event', (ev, d) => {
      if (ev === GEvents.done) events.onDone?.(d as CommandRecord | TaskRecord);
      else if (ev === GEvents.exit) events.onExit?.(d as ExitRecord);
      else if (ev === GEvents.awaiting) events.onAwaiting?.(d as CommandRecord);
      else if (ev === GEvents.mcpProgress) {
        const { progressId, ...p } = d as McpProgressEvent;
        link.progress.get(progressId)?.(p);
      }
    });
    peer.on('close', () => events.onClose?.());
    return link;
  }

  get isOpen(): boolean {
    return this.peer.isOpen;
  }

  /** Features the guardian announced. */
  get features(): string[] {
    return this.peer.remote?.features ?? [];
  }

  /** Guardian protocol version agreed in the handshake. */
  get proto(): number {
    return this.peer.remote?.proto ?? ProtocolVersions.GUARDIAN;
  }

  /** Build string the guardian announced. */
  get build(): string {
    return this.peer.remote?.build ?? 'unknown';
  }

  status(timeoutMs = 5000): Promise<GuardianStatus> {
    return this.call(G.status, {}, timeoutMs);
  }

  /**
   * `g.status` after waiting up to `waitReadyMs` for the shell's first prompt (issue 9); a
   * guardian without feature `status.wait_ready` answers at once.
   */
  statusWhenReady(waitReadyMs: number): Promise<GuardianStatus> {
    if (!this.features.includes('status.wait_ready')) return this.status();
    return this.call(G.status, { waitReadyMs }, waitReadyMs + WAIT_SLACK_MS);
  }

  /** `g.exec`; `signal` aborts the request (the guardian never types a command it has not typed yet). */
  exec(p: ExecParams, signal?: AbortSignal): Promise<ExecResult> {
    return this.call(G.exec, p, p.waitMs + WAIT_SLACK_MS + 10_000, signal);
  }

  wait(p: WaitParams, signal?: AbortSignal): Promise<CommandRecord | TaskRecord> {
    return this.call(G.wait, p, p.waitMs + WAIT_SLACK_MS, signal);
  }

  /** `g.input`; with `forId`, refused (`ok: false`) unless that command is the running foreground. */
  input(p: InputParams): Promise<InputResult> {
    inputsSent.set(this.gid, (inputsSent.get(this.gid) ?? 0) + 1);
    return this.call(G.input, p, 5000);
  }

  /** How many `g.input` calls this daemon sent to this guardian, over all its links. */
  get inputCount(): number {
    return inputsSent.get(this.gid) ?? 0;
  }

  /** Forgets the input count of a guardian that ended. */
  static forget(gid: string): void {
    inputsSent.delete(gid);
  }

  read(p: ReadParams): Promise<ReadResult> {
    return this.call(G.read, p, (p.waitMs ?? 0) + WAIT_SLACK_MS);
  }

  /** `g.snapshot`; `from` (feature `snapshot.region`) asks for the region drawn since that PTY offset. */
  snapshot(p: SnapshotParams = {}): Promise<SnapshotResult> {
    return this.call(G.snapshot, p, 10_000);
  }

  spawn(p: SpawnParams): Promise<TaskRecord> {
    return this.call(G.spawn, p, 10_000);
  }

  stop(id: string): Promise<CommandRecord | TaskRecord> {
    return this.call(G.stop, { id }, 15_000);
  }

  /**
   * Ends foreground command `id` only if it is still queued (never typed); null when the guardian
   * lacks feature `stop.if_queued` (issue 9, item 4).
   */
  stopIfQueued(id: string): Promise<CommandRecord | TaskRecord> | null {
    if (!this.features.includes('stop.if_queued')) return null;
    return this.call(G.stop, { id, ifQueued: true }, 15_000);
  }

  resetShell(): Promise<GuardianStatus> {
    return this.call(G.resetShell, {}, 20_000);
  }

  resize(cols: number, rows: number): Promise<unknown> {
    return this.call(G.resize, { cols, rows }, 5000);
  }

  /**
   * `g.desktop`: one desktop driver method (issue 15, shared/protocol/desktop.ts) through the
   * guardian. Only for guardians that announce the `desktop` feature.
   * @throws HoldfastError from the driver; `DESKTOP_UNAVAILABLE` for a guardian without the feature.
   */
  desktop<R>(m: string, p: unknown, deadlineMs: number): Promise<R> {
    if (!this.features.includes('desktop')) {
      return Promise.reject(
        new HoldfastError('DESKTOP_UNAVAILABLE', `the guardian of ${this.gid} was started by an older holdfast without desktop support; open a new session for desktop tools`, { retryable: false }),
      );
    }
    return this.call(G.desktop, { m, p }, deadlineMs);
  }

  /** Asks the guardian to end everything and exit; resolves with its exit record. */
  shutdown(p: ShutdownParams): Promise<ExitRecord> {
    return this.call(G.shutdown, p, 15_000);
  }

  /** The guardian hosts upstream MCP servers (`g.mcp.*`, issue 13). */
  get hostsUpstreams(): boolean {
    return this.features.includes(UPSTREAM_MCP_FEATURE);
  }

  /** `g.mcp.status`: the session's upstream servers. */
  mcpStatus(): Promise<{ servers: UpstreamState[] }> {
    return this.call(G.mcpStatus, {}, 5000);
  }

  /** `g.mcp.list_tools` (starts the server when needed). */
  mcpListTools(server: UpstreamSpec, signal?: AbortSignal): Promise<McpListToolsResult> {
    return this.call(G.mcpListTools, { server }, 75_000, signal);
  }

  /**
   * `g.mcp.call_tool`; `onProgress` receives the upstream's progress while it runs, `signal`
   * cancels it (the guardian sends `notifications/cancelled` upstream).
   */
  async mcpCallTool(p: Omit<McpCallToolParams, 'progressId'>, opts: { signal?: AbortSignal; onProgress?: (p: Omit<McpProgressEvent, 'progressId'>) => void }): Promise<McpCallToolResult> {
    let progressId: string | undefined;
    if (opts.onProgress) {
      progressId = `p${this.nextProgress++}`;
      this.progress.set(progressId, opts.onProgress);
    }
    try {
      return await this.call(G.mcpCallTool, { ...p, ...(progressId ? { progressId } : {}) }, (p.timeoutMs ?? 110_000) + WAIT_SLACK_MS + 35_000, opts.signal);
    } finally {
      if (progressId) this.progress.delete(progressId);
    }
  }

  /** The guardian holds secrets (`g.secret.*`, `secrets` on exec/spawn, output redaction; issue 12). */
  get holdsSecrets(): boolean {
    return this.features.includes(SECRETS_FEATURE);
  }

  /** `g.secret.put`: hands the guardian a value from the user (never logged or stored by the daemon). */
  secretPut(p: SecretPutParams): Promise<{ replaced: boolean }> {
    return this.call(G.secretPut, p, 5000);
  }

  secretForget(name: string): Promise<{ forgotten: boolean }> {
    return this.call(G.secretForget, { name }, 5000);
  }

  /** Names, purposes and open requests (never values). */
  secretList(): Promise<SecretListResult> {
    return this.call(G.secretList, {}, 5000);
  }

  /** Records the model's request; with `page`, opens the loopback page and returns its one-time URL. */
  secretRequest(p: SecretRequestParams): Promise<SecretRequestResult> {
    return this.call(G.secretRequest, p, 10_000);
  }

  /** Waits up to `waitMs` for the value (or the page being declined). */
  secretWait(p: SecretWaitParams, signal?: AbortSignal): Promise<SecretListResult> {
    return this.call(G.secretWait, p, p.waitMs + WAIT_SLACK_MS, signal);
  }

  /** Closes the page of `name` as declined by the user. */
  secretCancel(name: string): Promise<SecretListResult> {
    return this.call(G.secretCancel, { name }, 5000);
  }

  /** Tells the guardian this daemon is leaving (restart handoff) and closes the link. */
  async bye(): Promise<void> {
    try {
      await this.call(G.bye, {}, 2000);
    } catch {
      // leaving anyway
    }
    this.peer.close();
  }

  close(): void {
    this.peer.close();
  }

  private async call<R>(method: string, params: unknown, deadlineMs: number, signal?: AbortSignal): Promise<R> {
    try {
      return await this.peer.request<R>(method, params, { deadlineMs, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (err instanceof HoldfastError && err.code === 'NOT_CONNECTED') {
        throw new HoldfastError('GUARDIAN_UNAVAILABLE', `the guardian of ${this.gid} is not connected; retry shortly`, { cause: err });
      }
      throw err;
    }
  }
}
