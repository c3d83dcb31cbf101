/**
 * Entry point of the desktop driver bundle (issue 15, DESIGN §5.1):
 * `node guardian/dist/desktop-driver-<hash>.mjs --session-dir DIR`, started by the guardian on
 * first use with its private channel on fd 3 (a socket pair) and stderr to
 * `<session>/desktop/driver.log`. It speaks the framed msgpack RPC of DESIGN §3 on that channel
 * (no handshake frames: the guardian only ever starts the bundle built with it and checks
 * `d.hello`). When the channel closes — the guardian ended or died — the driver closes every
 * connection, stops the private display and exits; so does SIGTERM. SIGHUP is ignored.
 */
import { Socket } from 'node:net';
import { DEvents } from '@holdfast/shared/protocol';
import { FramedSocket, RpcPeer } from '@holdfast/shared/wire';
import { GUARDIAN_BUILD } from '../build-id.js';
import { log, setLogName } from '../log.js';
import { routeDriverRequest } from './driver-router.js';
import { Driver } from './driver.js';

setLogName('desktop-driver');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const sessionDir = arg('--session-dir');
if (!sessionDir) {
  log('usage: desktop-driver --session-dir <dir> (channel on fd 3)');
  process.exit(2);
}

const socket = new Socket({ fd: 3, readable: true, writable: true });
const peer = new RpcPeer(new FramedSocket(socket));
const driver = new Driver(sessionDir, GUARDIAN_BUILD, (env) => void peer.emitEvent(DEvents.display, env).catch(() => undefined));
let ending = false;

async function end(why: string): Promise<void> {
  if (ending) return;
  ending = true;
  log(`ending: ${why}`);
  const hard = setTimeout(() => process.exit(0), 5000);
  hard.unref();
  await driver.shutdown().catch((err: unknown) => log('shutdown failed', err));
  peer.close();
  process.exit(0);
}

peer.setHandler(async (m, p, ctx) => {
  const r = await routeDriverRequest(driver, m, p, ctx);
  if (m === 'd.shutdown') setImmediate(() => void end('shutdown requested'));
  return r;
});
peer.on('close', () => void end('the guardian channel closed'));
process.on('SIGTERM', () => void end('SIGTERM'));
process.on('SIGINT', () => void end('SIGINT'));
process.on('SIGHUP', () => log('SIGHUP ignored'));
process.on('uncaughtException', (err) => log('uncaught exception (continuing)', err));
process.on('unhandledRejection', (err) => log('unhandled rejection (continuing)', err));
log(`desktop driver ready (build ${GUARDIAN_BUILD}, session folder ${sessionDir})`);
