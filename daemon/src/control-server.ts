import { chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { buildString } from '@holdfast/shared/build';
import { ProtocolVersions, WireLimits } from '@holdfast/shared/protocol';
import { acceptPeer, protocolVersionRefusal, type RequestHandler, type RpcPeer } from '@holdfast/shared/wire';
import type { Logger } from './log.js';

/** `panel`: a desktop driver forwarding the person's choices from the panel page (issue 16). */
const CONTROL_ROLES = new Set(['adapter', 'cli', 'test', 'panel']);

/**
 * The control socket (DESIGN §3): accepts adapter/CLI connections on `run/daemon.sock` (0600),
 * checks the hello (protocol version, role) and hands requests to the router. A bad or oversize
 * frame closes only that connection.
 */
export class ControlServer {
  private server: Server | null = null;
  readonly peers = new Set<RpcPeer>();

  constructor(
    private readonly socketPath: string,
    private readonly handler: RequestHandler,
    private readonly log: Logger,
  ) {}

  /** Starts listening. @throws when the socket cannot be bound. */
  listen(): Promise<void> {
    const server = createServer((socket) => {
      void acceptPeer(socket, {
        helloTimeoutMs: 5000,
        maxFrameBytes: WireLimits.MAX_CONTROL_FRAME_BYTES,
        handler: this.handler,
        accept: (hello) => {
          if (hello.proto !== ProtocolVersions.CONTROL) return protocolVersionRefusal(hello.proto, [ProtocolVersions.CONTROL], 'daemon');
          if (!CONTROL_ROLES.has(hello.role)) return { code: 'BAD_REQUEST', message: `role ${hello.role} may not use the control socket`, retryable: false };
          return { proto: ProtocolVersions.CONTROL, role: 'daemon', build: buildString(), pid: process.pid, features: [] };
        },
      }).then((peer) => {
        if (!peer) return;
        this.peers.add(peer);
        peer.on('close', () => this.peers.delete(peer));
      });
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      const old = process.umask(0o177);
      server.once('error', (err) => {
        process.umask(old);
        reject(err);
      });
      server.listen(this.socketPath, () => {
        process.umask(old);
        try {
          chmodSync(this.socketPath, 0o600);
        } catch {
          // best effort
        }
        this.log.info('control socket listening', { socket: this.socketPath });
        resolve();
      });
    });
  }

  /** Emits an event to every connected client (e.g. `daemon.draining`). */
  broadcast(ev: string, data: unknown): void {
    for (const p of this.peers) void p.emitEvent(ev, data).catch(() => undefined);
  }

  /** Stops accepting and closes the listening socket (unlinks it); clients stay until closed. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
    });
  }

  /** Closes every client connection. */
  disconnectAll(): void {
    for (const p of this.peers) p.close();
  }
}
