import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { ControlEvents } from '@holdfast/shared/control';
import type { HomeLayout } from '@holdfast/shared/paths';
import { DaemonClient } from '../daemon-client.js';
import type { OAuthFront } from '../oauth/front.js';
import { ForwardConstants } from './constants.js';
import { startHttpServer, type RunningHttpServer } from './http.js';
import { ProgressRoutes } from './progress.js';
import { daemonResources } from './resources.js';
import type { ResolvedServe } from './serve-options.js';
import type { ServerDeps } from './server-factory.js';
import { startStdio, type RunningStdio } from './stdio.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolForwarder, type ToolBackend } from './tool-call.js';
import { UsageLog } from './usage-log.js';

/**
 * Wires one adapter process (DESIGN §1): the tool catalogue, one persistent daemon connection
 * (found or started by {@link DaemonClient}, reconnecting with back-off), the usage log, and the
 * HTTP or stdio front. The adapter holds no state worth keeping: stopping it — even with
 * `kill -9` — leaves the daemon and every session as they were.
 */
export interface RunningServe {
  /** `http://…/mcp` in HTTP mode. */
  url: string | null;
  /** Resolves when the front ends by itself (stdio: stdin closed). Never resolves in HTTP mode. */
  ended: Promise<void>;
  /** Tool calls in progress. */
  inFlight(): number;
  /** Stops serving and releases everything (idempotent). */
  close(): Promise<void>;
}

/**
 * The daemon as a {@link ToolBackend}: every call is one `tool.call` on the control socket. A call
 * whose client asked for progress gets a `progress_id` in its context; the daemon's
 * `tool.progress` events with that id go to the call's sink (`progress`, fed by the client's
 * event stream) until it ends.
 */
export function daemonBackend(client: DaemonClient, progress: ProgressRoutes): ToolBackend {
  return {
    callTool: async (tool, args, context, opts) => {
      const { onProgress, ...callOpts } = opts;
      if (!onProgress) return client.call('tool.call', { tool, arguments: args, context }, callOpts);
      const id = progress.open(onProgress);
      try {
        return await client.call('tool.call', { tool, arguments: args, context: { ...context, progress_id: id } }, callOpts);
      } finally {
        progress.close(id);
      }
    },
  };
}

/** Starts serving per `resolved`; `backend` defaults to the daemon of `layout.home`. */
export async function startServe(
  resolved: ResolvedServe,
  layout: HomeLayout,
  log: (line: string) => void,
  backendOverride?: ToolBackend,
): Promise<RunningServe> {
  // Daemon events reach the OAuth front (key rotations, revocations; issue 14).
  let oauthFront: OAuthFront | null = null;
  const progress = new ProgressRoutes();
  const onEvent = (ev: string, data: unknown): void => {
    if (ev === ControlEvents.oauthChanged && oauthFront) void oauthFront.onChange((data ?? {}) as Parameters<OAuthFront['onChange']>[0]).catch((err: unknown) => log(`oauth: ${(err as Error).message}`));
    else progress.deliver(ev, data);
  };
  const client = backendOverride ? null : new DaemonClient({ role: 'adapter', home: layout.home, autoStart: true, onEvent });
  const backend = backendOverride ?? daemonBackend(client!, progress);
  const catalog = new ToolCatalog();
  const usage = new UsageLog(layout.usageLog);
  const forwarder = new ToolForwarder(catalog, backend, usage, {
    affinity: resolved.affinity,
    panel: resolved.panel,
    requestTimeoutMs: resolved.requestTimeoutMs,
    deadlineMs: resolved.requestTimeoutMs + ForwardConstants.DAEMON_DEADLINE_MARGIN_MS,
  });
  const deps: ServerDeps = { catalog, forwarder, validator: new AjvJsonSchemaValidator(), resources: client ? daemonResources(client) : null };

  let http: RunningHttpServer | null = null;
  let stdio: RunningStdio | null = null;
  let ended: Promise<void> = new Promise<void>(() => undefined);
  try {
    if (resolved.mode === 'http') {
      http = await startHttpServer(resolved.http!, deps, log, client ? { backend: client, onFront: (f) => (oauthFront = f) } : undefined);
    } else {
      stdio = startStdio(deps, resolved.stdioPrincipal, log, resolved.maxMessageBytes);
      ended = stdio.ended;
    }
  } catch (err) {
    client?.close();
    await usage.close();
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    url: http?.url ?? null,
    ended,
    inFlight: () => forwarder.inFlight,
    close() {
      closing ??= (async () => {
        await http?.close().catch(() => undefined);
        await stdio?.close().catch(() => undefined);
        client?.close();
        await usage.close();
      })();
      return closing;
    },
  };
}
