import { chmodSync, existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { GUARDIAN_FEATURES, ProtocolVersions, type HelloFrame, type PeerRole, type WelcomeFrame, type WireError } from '@holdfast/shared/protocol';
import { acceptPeer, protocolVersionRefusal, type RequestHandler, type RpcPeer } from '@holdfast/shared/wire';
import { ServerTimings } from './constants.js';
import { log } from './log.js';

/**
 * The guardian's Unix socket (DESIGN §3, §4.5): the daemon dials it; the guardian never dials
 * anyone. The socket file is 0600 in a 0700 folder; a stale file at the path is replaced.
 *
 * Handshake: a `hello` with `proto === ProtocolVersions.GUARDIAN` from role `daemon`, `cli` or
 * `test` gets a `welcome` listing {@link GUARDIAN_FEATURES}; any other version gets one
 * `err PROTOCOL_VERSION` frame and is closed (another role: `BAD_REQUEST`). Several connections
 * may be open at once (a daemon restart hands over while the old one is still connected); only
 * role `daemon` counts as a daemon connection (orphan timer, `daemonConnections`). Events
 * (`g.done`, `g.exit`) go to every open connection.
 */
export interface GuardianServerOptions {
  socketPath: string;
  build: string;
  handler: RequestHandler;
  /** Called whenever the number of daemon connections changes. */
  onDaemonCount: (n: number) => void;
}

const ALLOWED_ROLES: ReadonlySet<PeerRole> = new Set<PeerRole>(['daemon', 'cli', 'test']);

export class GuardianServer {
  private server: Server | null = null;
  private readonly peers = new Set<RpcPeer>();
  private readonly sockets = new Set<Socket>();
  private closed = false;

  constructor(private readonly opts: GuardianServerOptions) {}

  /** Open connections (any role). */
  get connectionCount(): number {
    return this.peers.size;
  }

  /** Open connections of role `daemon`. */
  get daemonConnections(): number {
    let n = 0;
    for (const p of this.peers) if ((p.remote as HelloFrame | undefined)?.role === 'daemon') n++;
    return n;
  }

  /**
   * Binds the socket (0600). A stale socket file is replaced; a socket something still answers
   * on is NOT (another guardian owns this gid): rejects then, as when the path cannot be bound.
   */
  async listen(): Promise<void> {
    const path = this.opts.socketPath;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    if (existsSync(path)) {
      if (await somebodyListens(path)) throw new Error(`${path} is in use by a live process: another guardian owns this session`);
      try {
        unlinkSync(path);
      } catch {
        // gone meanwhile
      }
    }
    const server = createServer((s) => this.onSocket(s));
    this.server = server;
    return new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // The bind happens inside listen(): a tight umask makes the socket 0600 from the start.
      const old = process.umask(0o177);
      try {
        server.listen(path, () => {
          server.off('error', reject);
          server.on('error', (err) => log('socket server error', err));
          try {
            chmodSync(path, 0o600);
          } catch (err) {
            log('chmod of the socket failed', err);
          }
          resolve();
        });
      } finally {
        process.umask(old);
      }
    });
  }

  /** Sends an event to every open connection (best effort). */
  broadcast(ev: string, d: unknown): void {
    for (const p of this.peers) void p.emitEvent(ev, d).catch(() => undefined);
  }

  /**
   * Stops accepting, closes every connection after flushing what was written (bounded by
   * {@link ServerTimings.FLUSH_BEFORE_EXIT_MS}), and unlinks the socket file.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.server?.close();
    const gone = [...this.sockets].map((s) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r()))));
    for (const s of this.sockets) s.end();
    await Promise.race([Promise.all(gone), new Promise((r) => setTimeout(r, ServerTimings.FLUSH_BEFORE_EXIT_MS).unref())]);
    for (const s of this.sockets) s.destroy();
    try {
      unlinkSync(this.opts.socketPath);
    } catch {
      // already gone
    }
  }

  /** Resolves once no connection is open, or at `ms`. */
  async drained(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (this.peers.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  }

  private onSocket(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    void acceptPeer(socket, {
      accept: (hello) => this.accept(hello),
      handler: this.opts.handler,
      helloTimeoutMs: ServerTimings.HELLO_TIMEOUT_MS,
    }).then((peer) => {
      if (!peer) return;
      if (this.closed) {
        peer.close();
        return;
      }
      this.peers.add(peer);
      const hello = peer.remote as HelloFrame;
      log(`connection from ${hello.role} pid ${hello.pid} build ${hello.build}`);
      if (hello.role === 'daemon') this.opts.onDaemonCount(this.daemonConnections);
      peer.once('close', () => {
        this.peers.delete(peer);
        log(`${hello.role} pid ${hello.pid} disconnected`);
        if (hello.role === 'daemon') this.opts.onDaemonCount(this.daemonConnections);
      });
    });
  }

  private accept(hello: HelloFrame): Omit<WelcomeFrame, 'k'> | WireError {
    if (hello.proto !== ProtocolVersions.GUARDIAN) {
      log(`refused ${hello.role} pid ${hello.pid}: protocol ${hello.proto}`);
      return protocolVersionRefusal(hello.proto, [ProtocolVersions.GUARDIAN], 'guardian');
    }
    if (!ALLOWED_ROLES.has(hello.role)) {
      return { code: 'BAD_REQUEST', message: `role ${hello.role} may not talk to a guardian (daemon, cli or test only)`, retryable: false };
    }
    return { proto: ProtocolVersions.GUARDIAN, role: 'guardian', build: this.opts.build, pid: process.pid, features: [...GUARDIAN_FEATURES] };
  }
}

/** True when a connection to the Unix socket `path` succeeds within a second. */
function somebodyListens(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ path });
    const done = (v: boolean): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(false), 1000);
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}
