import { HoldfastError, ProtocolVersions } from '@holdfast/shared/protocol';
import { dialPeer, type RpcPeer } from '@holdfast/shared/wire';
import { GUARDIAN_BUILD } from '../../build-id.js';

/** Dial + hello deadline, ms. */
const DIAL_TIMEOUT_MS = 3000;

/**
 * The panel's line to holdfastd (issue 16): the person's choices in the page — connect a device,
 * save it (device book, keyring), pause, resume, disconnect, decline — are the daemon's business
 * (SQLite, the keyring, the device locks), so the driver forwards them over the daemon's control
 * socket with role `panel`, exactly as `holdfast desktop …` does from a terminal. Dialled on
 * demand and re-dialled after the daemon restarted; the socket path comes with every panel
 * request from the daemon. While no daemon answers, the call fails with `PANEL_UNAVAILABLE` and
 * the page says so (its video keeps running: that never passes through the daemon).
 */
export class DaemonLink {
  private peer: RpcPeer | null = null;
  private dialing: Promise<RpcPeer> | null = null;
  private socketPath: string | null = null;

  /** Where the daemon listens (from the latest panel request). */
  setSocket(path: string): void {
    if (path === this.socketPath) return;
    this.socketPath = path;
    this.peer?.close();
    this.peer = null;
  }

  /**
   * Calls a control method.
   * @throws HoldfastError from the daemon, `PANEL_UNAVAILABLE` (retryable) when it cannot be reached.
   */
  async call<R>(method: string, params: unknown, deadlineMs = 60_000): Promise<R> {
    const peer = await this.connect();
    try {
      return await peer.request<R>(method, params, { deadlineMs });
    } catch (err) {
      if (err instanceof HoldfastError && err.code === 'NOT_CONNECTED') throw unavailable(err.message);
      throw err;
    }
  }

  /** Closes the connection. */
  close(): void {
    this.peer?.close();
    this.peer = null;
  }

  private connect(): Promise<RpcPeer> {
    if (this.peer?.isOpen) return Promise.resolve(this.peer);
    const path = this.socketPath;
    if (!path) return Promise.reject(unavailable('the daemon has not told this driver where it listens yet'));
    this.dialing ??= dialPeer(path, { hello: { proto: ProtocolVersions.CONTROL, role: 'panel', build: GUARDIAN_BUILD, pid: process.pid, features: [] }, timeoutMs: DIAL_TIMEOUT_MS })
      .then((p) => {
        this.peer = p;
        p.on('close', () => {
          if (this.peer === p) this.peer = null;
        });
        return p;
      })
      .catch((err: unknown) => {
        throw unavailable((err as Error).message);
      })
      .finally(() => {
        this.dialing = null;
      });
    return this.dialing;
  }
}

function unavailable(why: string): HoldfastError {
  return new HoldfastError('PANEL_UNAVAILABLE', `holdfastd is not reachable (${why}); the video keeps running, try again when the daemon is back`, { retryable: true });
}
