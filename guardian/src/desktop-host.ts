import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { D, DEvents, HoldfastError, ProtocolVersions, type DisplayEnvEvent } from '@holdfast/shared/protocol';
import { FramedSocket, RpcPeer, type RequestContext } from '@holdfast/shared/wire';
import { ServerTimings } from './constants.js';
import { log } from './log.js';
import { killEscalate } from './process-killer.js';

/**
 * File name of the driver bundle built together with this guardian (stamped by bundle.mjs), so a
 * guardian that lives for days never starts a newer driver from disk.
 */
declare const __HOLDFAST_DRIVER_BUNDLE__: string | undefined;

/** How long the driver may take to answer `d.hello` after it was started, ms. */
const DRIVER_HELLO_MS = 10_000;
/** Grace for the driver's own orderly shutdown before its process group is killed, ms. */
const DRIVER_SHUTDOWN_MS = 3000;

/** The driver bundle this guardian starts: the stamped name, else the newest one beside it (unbundled runs). */
export function driverBundlePath(): string {
  const dir = dirname(fileURLToPath(import.meta.url));
  if (typeof __HOLDFAST_DRIVER_BUNDLE__ === 'string') return join(dir, __HOLDFAST_DRIVER_BUNDLE__);
  const found = readdirSync(dir)
    .filter((n) => /^desktop-driver-[A-Za-z0-9]+\.mjs$/.test(n))
    .map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t)[0];
  if (!found) throw new HoldfastError('DESKTOP_UNAVAILABLE', `no desktop driver bundle in ${dir}; run npm run build`, { retryable: false });
  return join(dir, found.n);
}

export interface DesktopHostDeps {
  sessionDir: string;
  /** Environment of the driver (the guardian's base environment: it carries HOLDFAST_SESSION). */
  env: Record<string, string>;
  /** The private display appeared (variables to set) or went away (null). */
  onDisplayEnv: (env: DisplayEnvEvent) => void;
}

/**
 * The guardian's side of the desktop driver (issue 15, DESIGN §5.1): starts the driver child on
 * first use — its own process group and session (`detached`), stderr to
 * `<session>/desktop/driver.log`, a private socket pair on its fd 3, no filesystem path anyone
 * else could dial — and relays `g.desktop` requests to it unchanged. The driver survives adapter
 * and daemon restarts with the guardian; {@link stop} ends it with the session (its orderly
 * `d.shutdown`, then kill escalation of its process group and session, which holds the private
 * display's X and VNC servers). A driver that died is started again on the next use.
 */
export class DesktopHost {
  private child: ChildProcess | null = null;
  private peer: RpcPeer | null = null;
  private starting: Promise<RpcPeer> | null = null;
  private stopped = false;

  constructor(private readonly d: DesktopHostDeps) {}

  /** Pid of the running driver, or null. */
  get pid(): number | null {
    return this.peer?.isOpen && this.child?.pid !== undefined ? this.child.pid : null;
  }

  /**
   * `g.desktop`: forwards driver method `m` with params `p`. `d.status` without a running driver
   * answers null and `d.shutdown` `{ok: true}` (neither starts one).
   * @throws HoldfastError from the driver, `DESKTOP_UNAVAILABLE` when it cannot be started,
   *   `SESSION_EXITED` once the session is ending.
   */
  async relay(m: string, p: unknown, ctx: RequestContext): Promise<unknown> {
    if (this.pid === null && !this.starting) {
      if (m === D.status) return null;
      if (m === D.shutdown) return { ok: true };
    }
    if (this.stopped) throw new HoldfastError('SESSION_EXITED', 'this session is ending; open a new one', { retryable: false });
    const peer = await this.ensure();
    const deadlineMs = ctx.deadline !== undefined ? Math.max(1000, ctx.deadline - Date.now() - ServerTimings.DEADLINE_MARGIN_MS) : undefined;
    try {
      return await peer.request(m, p, { ...(deadlineMs !== undefined ? { deadlineMs } : {}), signal: ctx.signal });
    } catch (err) {
      if (err instanceof HoldfastError && err.code === 'NOT_CONNECTED') {
        throw new HoldfastError('DESKTOP_UNAVAILABLE', 'the desktop driver of this session ended during the call; its desktop connections are gone — connect again', { retryable: true, cause: err });
      }
      throw err;
    }
  }

  /** Ends the driver and everything it started (session ending). Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    const peer = this.peer;
    if (!child?.pid) return;
    if (peer?.isOpen) await peer.request(D.shutdown, {}, { deadlineMs: DRIVER_SHUTDOWN_MS }).catch(() => undefined);
    peer?.close();
    await killEscalate({ sessions: [child.pid], groups: [child.pid] });
  }

  private ensure(): Promise<RpcPeer> {
    if (this.peer?.isOpen) return Promise.resolve(this.peer);
    this.starting ??= this.start().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async start(): Promise<RpcPeer> {
    const dir = join(this.d.sessionDir, 'desktop');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const bundle = driverBundlePath();
    const logFd = openSync(join(dir, 'driver.log'), 'a', 0o600);
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [bundle, '--session-dir', this.d.sessionDir], { cwd: dir, detached: true, stdio: ['ignore', logFd, logFd, 'pipe'], env: this.d.env });
    } finally {
      closeSync(logFd);
    }
    if (child.pid === undefined) {
      child.once('error', () => undefined);
      throw new HoldfastError('DESKTOP_UNAVAILABLE', `cannot start the desktop driver (${bundle})`, { retryable: false });
    }
    const channel = child.stdio[3] as Socket;
    const peer = new RpcPeer(new FramedSocket(channel));
    peer.on('event', (ev, data) => {
      if (ev === DEvents.display) this.d.onDisplayEnv((data ?? null) as DisplayEnvEvent);
    });
    child.once('exit', (code, signal) => {
      log(`desktop driver ${child.pid} exited (code ${code}, signal ${signal})`);
      peer.close();
      if (this.child === child) {
        this.child = null;
        this.peer = null;
        this.d.onDisplayEnv(null);
      }
    });
    this.child = child;
    try {
      const hello = await peer.request<{ proto: number; pid: number }>(D.hello, { proto: ProtocolVersions.DESKTOP_DRIVER }, { deadlineMs: DRIVER_HELLO_MS });
      if (hello.proto !== ProtocolVersions.DESKTOP_DRIVER) throw new Error(`it speaks driver protocol ${hello.proto}, this guardian ${ProtocolVersions.DESKTOP_DRIVER}`);
    } catch (err) {
      child.kill('SIGKILL');
      throw new HoldfastError('DESKTOP_UNAVAILABLE', `the desktop driver did not start: ${(err as Error).message} (see ${join(dir, 'driver.log')})`, { retryable: false });
    }
    this.peer = peer;
    log(`desktop driver started (pid ${child.pid}, ${bundle})`);
    return peer;
  }
}
