import { connect, type Socket } from 'node:net';
import { HoldfastError, fromWireError, type WireError } from '../errors.js';
import type { Frame, HelloFrame, PeerRole, WelcomeFrame } from '../protocol/envelope.js';
import { FramedSocket } from './framed-socket.js';
import { RpcPeer, type RequestHandler } from './rpc-peer.js';

export interface DialOptions {
  /** Our hello (the `k` is added). */
  hello: Omit<HelloFrame, 'k'>;
  /** Connect + welcome deadline, ms. */
  timeoutMs: number;
  /** Serves requests the server sends back (optional). */
  handler?: RequestHandler;
  /** Largest frame accepted, bytes. */
  maxFrameBytes?: number;
}

/**
 * Dials a Unix socket, sends `hello` and waits for `welcome` (DESIGN §3).
 * @throws HoldfastError `DAEMON_UNAVAILABLE`-style `NOT_CONNECTED` when nothing listens (the
 *   `details.errno` says `ENOENT` or `ECONNREFUSED`), `PROTOCOL_VERSION` when the server refuses
 *   our version, `TIMEOUT` when no answer comes in time.
 */
export function dialPeer(path: string, opts: DialOptions): Promise<RpcPeer> {
  return new Promise<RpcPeer>((resolve, reject) => {
    const socket = connect({ path });
    const framed = new FramedSocket(socket, opts.maxFrameBytes);
    let done = false;
    const finish = (err: Error | null, peer?: RpcPeer): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      framed.off('frame', onFirst);
      if (err) {
        socket.destroy();
        reject(err);
      } else resolve(peer!);
    };
    const timer = setTimeout(() => finish(new HoldfastError('TIMEOUT', `no welcome from ${path} within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    socket.once('error', (err: NodeJS.ErrnoException) => {
      finish(new HoldfastError('NOT_CONNECTED', `cannot connect to ${path}: ${err.code ?? err.message}`, { details: { errno: err.code ?? 'UNKNOWN' } }));
    });
    framed.once('close', () => finish(new HoldfastError('NOT_CONNECTED', `${path} closed the connection during the handshake`)));
    const onFirst = (f: Frame): void => {
      if (f.k === 'welcome') {
        const peer = new RpcPeer(framed, opts.handler);
        peer.remote = f;
        finish(null, peer);
      } else if (f.k === 'err') {
        finish(fromWireError(f.e));
      } else {
        finish(new HoldfastError('BAD_FRAME', `expected welcome, got ${f.k}`));
      }
    };
    framed.on('frame', onFirst);
    socket.once('connect', () => {
      framed.send({ k: 'hello', ...opts.hello }).catch((err: Error) => finish(err));
    });
  });
}

export interface AcceptOptions {
  /** Decides on the client's hello: a welcome (without `k`) or a refusal. */
  accept: (hello: HelloFrame) => Omit<WelcomeFrame, 'k'> | WireError;
  /** Serves the client's requests. */
  handler: RequestHandler;
  /** The client must say hello within this, ms. */
  helloTimeoutMs: number;
  maxFrameBytes?: number;
}

/**
 * Server side of the handshake on an accepted socket. Resolves with the peer after `welcome`,
 * or null when the client was refused (one `err` frame, then close) or went away.
 */
export function acceptPeer(socket: Socket, opts: AcceptOptions): Promise<RpcPeer | null> {
  return new Promise<RpcPeer | null>((resolve) => {
    const framed = new FramedSocket(socket, opts.maxFrameBytes);
    let done = false;
    const finish = (peer: RpcPeer | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      framed.off('frame', onFirst);
      resolve(peer);
    };
    const timer = setTimeout(() => {
      framed.failAndClose(new HoldfastError('TIMEOUT', 'no hello in time'));
      finish(null);
    }, opts.helloTimeoutMs);
    socket.on('error', () => undefined);
    framed.once('close', () => finish(null));
    const onFirst = (f: Frame): void => {
      framed.off('frame', onFirst);
      if (f.k !== 'hello') {
        framed.failAndClose(new HoldfastError('BAD_FRAME', `first frame must be hello, got ${f.k}`));
        finish(null);
        return;
      }
      const answer = opts.accept(f);
      if ('code' in answer) {
        framed.failAndClose(fromWireError(answer));
        finish(null);
        return;
      }
      const peer = new RpcPeer(framed, opts.handler);
      peer.remote = f;
      framed.send({ k: 'welcome', ...answer }).then(
        () => finish(peer),
        () => finish(null),
      );
    };
    framed.on('frame', onFirst);
  });
}

/** Builds the standard refusal for a protocol version mismatch. */
export function protocolVersionRefusal(theirs: number, ours: readonly number[], role: PeerRole): WireError {
  return {
    code: 'PROTOCOL_VERSION',
    message: `protocol ${theirs} is not spoken here (this ${role} speaks ${ours.join(', ')}); upgrade the older side or run \`holdfast restart-daemon\``,
    retryable: false,
    details: { theirs, ours: [...ours] },
  };
}
