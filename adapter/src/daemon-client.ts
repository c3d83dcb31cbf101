import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildString } from '@holdfast/shared/build';
import { DAEMON_NODE_FLAGS, LinkTimeouts, ProtocolVersions, WireLimits } from '@holdfast/shared/constants';
import { ControlEvents, type ControlMethod, type ControlParams, type ControlResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { homeLayout, resolveHome, type HomeLayout } from '@holdfast/shared/paths';
import { isProcessAlive } from '@holdfast/shared/proc';
import type { PeerRole } from '@holdfast/shared/protocol';
import { assertOwnSocket } from '@holdfast/shared/run-dir';
import { dialPeer, type RpcPeer } from '@holdfast/shared/wire';

/** How a call may be repeated after the daemon went away mid-call (DESIGN §4.5). */
export type RetryPolicy = 'idempotent' | 'never';

export interface CallOptions {
  /** Deadline of one attempt, ms. */
  deadlineMs?: number;
  /** `idempotent` calls are re-sent after a reconnect; others fail with a retryable error. */
  retry?: RetryPolicy;
  signal?: AbortSignal;
}

export interface DaemonClientOptions {
  role: PeerRole;
  /** `HOLDFAST_HOME`; default from the environment. */
  home?: string;
  /** Start `holdfastd` when nothing listens (the adapter does; `holdfast list` does not). */
  autoStart: boolean;
  /** Events from the daemon (e.g. `daemon.draining`). */
  onEvent?: (ev: string, data: unknown) => void;
  /** Give up reconnecting after this long, ms. */
  giveUpMs?: number;
}

const CONNECT_TIMEOUT_MS = 3000;
/**
 * After the daemon said it is handing over (`daemon.draining`, or a `DAEMON_DRAINING` answer), its
 * successor gets this long to take the lock before the client would start a daemon itself, ms:
 * between the predecessor letting go and the successor's pid file there is no live holder to see.
 */
const HANDOVER_GRACE_MS = 10_000;

/** Absolute path of the daemon entry point (resolved, never imported: DESIGN §1 boundaries). */
export function daemonEntryPath(): string {
  return fileURLToPath(import.meta.resolve('@holdfast/daemon/main'));
}

/**
 * Starts `holdfastd` detached (own session, stdio to `logs/daemon.log`, no pipes) for a home.
 * The daemon's lock makes a double start harmless: the second one exits quietly (`--if-absent`).
 */
export function startDaemonDetached(layout: HomeLayout): number {
  mkdirSync(layout.logsDir, { recursive: true, mode: 0o700 });
  const fd = openSync(layout.daemonLog, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, daemonEntryPath(), 'run', '--home', layout.home, '--if-absent'], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, HOLDFAST_HOME: layout.home },
    });
    child.unref();
    return child.pid ?? -1;
  } finally {
    closeSync(fd);
  }
}

/** True when `run/daemon.pid` names a live process (pid and start time). */
function daemonHolderAlive(layout: HomeLayout): boolean {
  try {
    const rec = JSON.parse(readFileSync(layout.daemonPidFile, 'utf8')) as { pid?: unknown; startTime?: unknown };
    return typeof rec.pid === 'number' && isProcessAlive(rec.pid, typeof rec.startTime === 'string' ? rec.startTime : null);
  } catch {
    return false;
  }
}

function isUnreachable(err: unknown): boolean {
  return err instanceof HoldfastError && (err.code === 'NOT_CONNECTED' || err.code === 'TIMEOUT');
}

function isReconnectable(err: unknown): boolean {
  return err instanceof HoldfastError && (err.code === 'NOT_CONNECTED' || err.code === 'DAEMON_DRAINING' || err.code === 'DAEMON_UNAVAILABLE');
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Client of the daemon's control socket, shared by the adapter and the ops CLI. Connects lazily,
 * finds or starts the daemon, reconnects with back-off (50 ms doubling to 1 s, for up to 20 s
 * by default) when the daemon restarts, and re-sends idempotent calls. A non-idempotent call
 * interrupted by a restart fails with a retryable `DAEMON_UNAVAILABLE` that says to repeat it.
 */
export class DaemonClient {
  readonly layout: HomeLayout;
  private peer: RpcPeer | null = null;
  private connecting: Promise<RpcPeer> | null = null;
  private closed = false;
  /** When the daemon last said it is handing over to a successor (epoch ms; 0 = never). */
  private handoverSeenAt = 0;

  constructor(private readonly opts: DaemonClientOptions) {
    this.layout = homeLayout(opts.home ?? resolveHome());
  }

  /** The live connection, or null. */
  get connection(): RpcPeer | null {
    return this.peer && this.peer.isOpen ? this.peer : null;
  }

  /**
   * Calls a control method.
   * @throws HoldfastError from the daemon, or `DAEMON_UNAVAILABLE` when it cannot be reached.
   */
  async call<M extends ControlMethod>(method: M, params: ControlParams<M>, opts: CallOptions = {}): Promise<ControlResult<M>> {
    const retry = opts.retry ?? 'idempotent';
    const giveUpAt = Date.now() + (this.opts.giveUpMs ?? LinkTimeouts.RECONNECT_GIVE_UP_MS);
    let backoff: number = LinkTimeouts.RECONNECT_FIRST_MS;
    for (;;) {
      let sent = false;
      try {
        const peer = await this.connect();
        sent = true;
        const reqOpts: { deadlineMs?: number; signal?: AbortSignal } = {};
        if (opts.deadlineMs !== undefined) reqOpts.deadlineMs = opts.deadlineMs;
        if (opts.signal) reqOpts.signal = opts.signal;
        return await peer.request<ControlResult<M>>(method, params, reqOpts);
      } catch (err) {
        if (this.closed || !isReconnectable(err)) throw err;
        const draining = err instanceof HoldfastError && err.code === 'DAEMON_DRAINING';
        if (draining) this.handoverSeenAt = Date.now();
        // A request that may have reached the daemon is only repeated when repeating is safe.
        if (sent && !draining && retry === 'never') {
          throw new HoldfastError('DAEMON_UNAVAILABLE', `the daemon went away during ${method}; it may or may not have run — check its state, then repeat the call`, {
            retryable: true,
            details: { method },
          });
        }
        if (Date.now() + backoff > giveUpAt) {
          throw new HoldfastError('DAEMON_UNAVAILABLE', `holdfastd is not reachable at ${this.layout.daemonSocket} (${(err as Error).message}); start it with \`holdfast daemon run\``, {
            retryable: true,
          });
        }
        await delay(backoff);
        backoff = Math.min(backoff * 2, LinkTimeouts.RECONNECT_MAX_MS);
      }
    }
  }

  /** Closes the connection; later calls fail. */
  close(): void {
    this.closed = true;
    this.peer?.close();
    this.peer = null;
  }

  private connect(): Promise<RpcPeer> {
    if (this.closed) return Promise.reject(new HoldfastError('NOT_CONNECTED', 'client closed', { retryable: false }));
    if (this.peer && this.peer.isOpen) return Promise.resolve(this.peer);
    this.connecting ??= this.dial().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async dial(): Promise<RpcPeer> {
    let started = false;
    const deadline = Date.now() + LinkTimeouts.GUARDIAN_SPAWN_READY_MS;
    let wait = 20;
    for (;;) {
      try {
        // Only our own daemon can listen there; nothing is sent to anyone else's socket (issue 18).
        assertOwnSocket(this.layout.daemonSocket);
        const peer = await dialPeer(this.layout.daemonSocket, {
          hello: { proto: ProtocolVersions.CONTROL, role: this.opts.role, build: buildString(), pid: process.pid, features: [] },
          timeoutMs: CONNECT_TIMEOUT_MS,
          maxFrameBytes: WireLimits.MAX_CONTROL_FRAME_BYTES,
        });
        peer.on('event', (ev, d) => {
          if (ev === ControlEvents.draining) this.handoverSeenAt = Date.now();
          this.opts.onEvent?.(ev, d);
        });
        peer.on('close', () => {
          if (this.peer === peer) this.peer = null;
        });
        this.peer = peer;
        return peer;
      } catch (err) {
        if (!isUnreachable(err)) throw err;
        if (!this.opts.autoStart) throw err;
        // A live lock holder (a daemon handing over to its successor, or one still starting) or a
        // successor about to take the lock will answer shortly: starting another would only lose
        // the lock race and log an error.
        const handingOver = Date.now() - this.handoverSeenAt < HANDOVER_GRACE_MS;
        if (!started && !handingOver && !daemonHolderAlive(this.layout)) {
          startDaemonDetached(this.layout);
          started = true;
        }
        if (Date.now() > deadline) throw err;
        await delay(wait);
        wait = Math.min(wait * 2, 200);
      }
    }
  }
}
