import {
  G,
  GEvents,
  HoldfastError,
  isMcpCallToolParams,
  isSecretNameParams,
  isSecretPutParams,
  isSecretRequestParams,
  isSecretWaitParams,
  isMcpListToolsParams,
  isDesktopRelayParams,
  isExecParams,
  isInputParams,
  isReadParams,
  isResizeParams,
  isShutdownParams,
  isSnapshotParams,
  isSpawnParams,
  isStatusParams,
  isStopParams,
  isWaitParams,
  LinkTimeouts,
  type InputResult,
  type McpProgressEvent,
  type SecretRequestResult,
} from '@holdfast/shared/protocol';
import type { RequestContext } from '@holdfast/shared/wire';
import { ServerTimings } from './constants.js';
import { log } from './log.js';
import type { Session } from './session.js';

/**
 * Request dispatch of the guardian protocol (DESIGN §3, shared/protocol/guardian.ts): every
 * inbound request is checked with its guard (`BAD_REQUEST` when it fails), then served by the
 * session. Unknown methods get `UNKNOWN_METHOD`. Expected outcomes (command already running,
 * shell not ready) are values; errors are `HoldfastError`s with a code.
 *
 * Waits (`exec`, `wait`, `read`) are capped at {@link LinkTimeouts.MAX_WAIT_MS} and answer
 * {@link ServerTimings.DEADLINE_MARGIN_MS} before the request's deadline, so a caller whose
 * deadline is shorter than `waitMs` still gets the running record instead of a timeout.
 *
 * `g.status` with `waitReadyMs` first waits (bounded) for the shell's first prompt.
 *
 * Results beyond guardian.ts: `g.input`, `g.resize` and `g.bye` answer `{ok: true}`;
 * `g.reset_shell` answers the new `GuardianStatus`; `g.stop` and `g.wait` answer the
 * `CommandRecord` or `TaskRecord` (`TASK_NOT_FOUND` for an unknown id); `g.shutdown` answers
 * the `ExitRecord` and the process exits right after. Work requests on an ending session get
 * `SESSION_EXITED`. `g.mcp.status` answers `{servers: UpstreamState[]}`; `g.mcp.call_tool` with a
 * `progressId` emits `g.mcp.progress` events to the calling connection while it runs (issue 13).
 * `g.desktop` is relayed to the desktop driver (desktop-host.ts, issue 15).
 */
export async function routeRequest(s: Session, method: string, params: unknown, ctx: RequestContext): Promise<unknown> {
  const wctx = {
    signal: ctx.signal,
    ...(ctx.deadline !== undefined ? { deadline: ctx.deadline - ServerTimings.DEADLINE_MARGIN_MS } : {}),
  };
  const bad = (what: string): HoldfastError => new HoldfastError('BAD_REQUEST', `${method}: invalid parameters (${what})`);
  const live = (): void => {
    if (s.isEnding) throw new HoldfastError('SESSION_EXITED', 'this session is ending; open a new one');
  };
  switch (method) {
    case G.status: {
      if (!isStatusParams(params)) throw bad('waitReadyMs must be a non-negative integer');
      const waitMs = Math.min(params?.waitReadyMs ?? 0, LinkTimeouts.MAX_WAIT_MS);
      if (waitMs > 0) await s.waitShellReady(Math.min(Date.now() + waitMs, wctx.deadline ?? Infinity), ctx.signal);
      return s.status();
    }
    case G.exec: {
      if (!isExecParams(params)) throw bad('id, command, waitMs required');
      if (s.isEnding) return { ok: false, reason: 'shell_exited', running: null };
      return s.commands.exec({ ...params, waitMs: Math.min(params.waitMs, LinkTimeouts.MAX_WAIT_MS) }, wctx);
    }
    case G.wait: {
      if (!isWaitParams(params)) throw bad('id, waitMs required');
      const waitMs = Math.min(params.waitMs, LinkTimeouts.MAX_WAIT_MS);
      const cmd = await s.commands.wait(params.id, waitMs, params.quietMs, wctx);
      if (cmd) return cmd;
      const until = Math.min(Date.now() + waitMs, wctx.deadline ?? Infinity);
      const task = await s.tasks.waitExit(params.id, Math.max(0, until - Date.now()), ctx.signal);
      if (task) return task;
      throw new HoldfastError('TASK_NOT_FOUND', `no command or task ${params.id} in this session (only the last 100 finished are kept)`);
    }
    case G.input:
      if (!isInputParams(params)) throw bad('text and/or keys from KEY_SEQUENCES');
      live();
      if (params.forId !== undefined) {
        const running = s.commands.foreground;
        if (!running || running.id !== params.forId) return { ok: false, reason: 'not_running', running } satisfies InputResult;
      }
      s.commands.input(params);
      return { ok: true } satisfies InputResult;
    case G.read:
      if (!isReadParams(params)) throw bad('src, from, max required');
      return s.reader.read(params, wctx);
    case G.snapshot:
      if (!isSnapshotParams(params)) throw bad('from: a PTY offset');
      return params?.from !== undefined ? s.screen.region(params.from) : s.screen.snapshot();
    case G.spawn:
      if (!isSpawnParams(params)) throw bad('id and exactly one of argv, command');
      live();
      return s.tasks.spawn(params);
    case G.stop: {
      if (!isStopParams(params)) throw bad('id required');
      const rec = (await s.commands.stop(params.id, params.ifQueued === true)) ?? (await s.tasks.stop(params.id));
      if (rec) return rec;
      throw new HoldfastError('TASK_NOT_FOUND', `no command or task ${params.id} in this session`);
    }
    case G.resetShell:
      live();
      return s.resetShell();
    case G.resize:
      if (!isResizeParams(params)) throw bad('cols and rows in 1..1000');
      s.resize(params.cols, params.rows);
      return { ok: true };
    case G.shutdown: {
      if (!isShutdownParams(params)) throw bad('reason required');
      const rec = await s.shutdown(params.reason);
      setImmediate(() => void s.exitProcess());
      return rec;
    }
    case G.mcpStatus:
      return { servers: s.upstream.status() };
    case G.mcpListTools:
      if (!isMcpListToolsParams(params)) throw bad('server (an UpstreamSpec) required');
      live();
      s.clock.instruction(false);
      return s.upstream.listTools(params.server, ctx.signal);
    case G.mcpCallTool: {
      if (!isMcpCallToolParams(params)) throw bad('server, tool, arguments required');
      live();
      s.clock.instruction(true);
      const id = params.progressId;
      const onProgress =
        id === undefined ? undefined : (p: Omit<McpProgressEvent, 'progressId'>) => void ctx.peer.emitEvent(GEvents.mcpProgress, { progressId: id, ...p } satisfies McpProgressEvent).catch(() => undefined);
      return s.upstream.callTool(params, ctx.signal, onProgress);
    }
    case G.secretPut: {
      if (!isSecretPutParams(params)) throw bad('name (a variable name), value, via');
      live();
      const r = s.secrets.put(params);
      s.secretPages.cancel(params.name, false);
      log(`secret ${params.name} provided (${params.via})`);
      return r;
    }
    case G.secretForget: {
      if (!isSecretNameParams(params)) throw bad('name required');
      s.secretPages.cancel(params.name, false);
      return { forgotten: s.secrets.forget(params.name) };
    }
    case G.secretList:
      return s.secrets.list();
    case G.secretRequest: {
      if (!isSecretRequestParams(params)) throw bad('name, purpose, page, ttlMs required');
      live();
      s.secrets.request(params.name, params.purpose);
      const page = params.page ? await s.secretPages.open(params.name, params.purpose, Math.min(params.ttlMs, 60 * 60 * 1000)) : undefined;
      const request = s.secrets.list().requests.find((r) => r.name === params.name)!;
      return { request, ...(page ? { url: page.url } : {}) } satisfies SecretRequestResult;
    }
    case G.secretWait: {
      if (!isSecretWaitParams(params)) throw bad('name, waitMs required');
      const name = params.name;
      const settled = (): boolean => {
        if (s.secrets.has(name)) return true;
        const r = s.secrets.list().requests.find((q) => q.name === name);
        return r === undefined || r.page?.state === 'declined';
      };
      const until = Math.min(Date.now() + Math.min(params.waitMs, LinkTimeouts.MAX_WAIT_MS), wctx.deadline ?? Infinity);
      await s.secrets.waitFor(settled, Math.max(0, until - Date.now()), ctx.signal);
      return s.secrets.list();
    }
    case G.secretCancel: {
      if (!isSecretNameParams(params)) throw bad('name required');
      s.secretPages.cancel(params.name, true);
      return s.secrets.list();
    }
    case G.desktop:
      if (!isDesktopRelayParams(params)) throw bad('m (a d.* driver method) and p');
      return s.desktop.relay(params.m, params.p, ctx);
    case G.bye:
      log(`${(ctx.peer.remote as { role?: string } | undefined)?.role ?? 'peer'} says bye (restart handoff, not a shutdown)`);
      return { ok: true };
    default:
      throw new HoldfastError('UNKNOWN_METHOD', `the guardian does not serve ${method}`);
  }
}
