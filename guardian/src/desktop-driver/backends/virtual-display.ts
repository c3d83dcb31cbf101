import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsc, existsSync, mkdirSync, openSync, closeSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { DesktopLimits, HoldfastError, type VirtualBackendSpec } from '@holdfast/shared/protocol';
import { log } from '../../log.js';
import { writeWildcardCookie } from '../xauthority.js';

/** What the shell and GUI programs of the session need to reach the display. */
export interface DisplayEnv {
  DISPLAY: string;
  XAUTHORITY: string;
}

/** A started private display. */
export interface RunningDisplay {
  server: 'xtigervnc' | 'xvfb';
  /** `:N`. */
  xDisplay: string;
  /** RFB on a Unix socket in the session folder (0600 in a 0700 folder; no TCP port). */
  socketPath: string;
  env: DisplayEnv;
  /** Pid of the X server. */
  pid: number;
}

/** Finds an executable on PATH. */
export function which(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, fsc.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The session's private display (issue 15 `virtual` backend), owned by the driver: an X server
 * with an RFB server on a Unix socket, a window manager, and a fresh MIT cookie, all under
 * `<session>/desktop/`:
 *
 * - `xtigervnc` (preferred by `auto`): one `Xtigervnc` process, X server and VNC server in one
 *   (damage-tracked updates, no polling);
 * - `xvfb`: `Xvfb` plus `x11vnc -unixsock` (polls the screen).
 *
 * Display numbers come from the server (`-displayfd`), never chosen here; no TCP listener is
 * opened (`-nolisten tcp`, no RFB port). The keymap is pinned to `us` (`setxkbmap`) because
 * XTEST-style key injection mistypes on other maps. Children stay in the driver's process group,
 * so the guardian's kill of the driver's group takes them along; {@link stop} ends them first.
 */
export class VirtualDisplay {
  private children: ChildProcess[] = [];
  private running: RunningDisplay | null = null;
  private starting: Promise<RunningDisplay> | null = null;

  /**
   * @param onEnv called with the display's variables whenever it (re)starts, and with null when
   *   it stops or its X server dies (the guardian passes them on to the session's shell and tasks).
   */
  constructor(
    private readonly dir: string,
    private readonly onEnv: (env: DisplayEnv | null) => void = () => undefined,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The running display, or null. */
  get current(): RunningDisplay | null {
    return this.running;
  }

  /**
   * Starts the display (once; later calls get the same one while it runs).
   * @throws HoldfastError `DESKTOP_UNAVAILABLE` when no server is installed or it does not come up.
   */
  ensure(spec: VirtualBackendSpec): Promise<RunningDisplay> {
    if (this.running) return Promise.resolve(this.running);
    this.starting ??= this.start(spec).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  /** Ends the window manager, the VNC server and the X server (SIGTERM, then SIGKILL after 1 s). */
  async stop(): Promise<void> {
    const kids = this.children;
    const was = this.running;
    this.children = [];
    this.running = null;
    await Promise.all(kids.reverse().map((c) => terminate(c)));
    rmSync(join(this.dir, 'vnc.sock'), { force: true });
    if (was) this.onEnv(null);
  }

  private async start(spec: VirtualBackendSpec): Promise<RunningDisplay> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = this.env.PATH ?? '';
    const tiger = which('Xtigervnc', path);
    const xvfb = which('Xvfb', path);
    const x11vnc = which('x11vnc', path);
    let server: 'xtigervnc' | 'xvfb';
    if (spec.server === 'xtigervnc' || (spec.server === 'auto' && tiger)) {
      if (!tiger) throw unavailable('Xtigervnc is not installed (Debian: tigervnc-standalone-server)');
      server = 'xtigervnc';
    } else {
      if (!xvfb || !x11vnc) throw unavailable('the private display needs Xtigervnc (tigervnc-standalone-server) or Xvfb and x11vnc (xvfb, x11vnc)');
      server = 'xvfb';
    }
    const xauth = join(this.dir, 'xauthority');
    const socketPath = join(this.dir, 'vnc.sock');
    rmSync(socketPath, { force: true });
    writeWildcardCookie(xauth);
    const logPath = join(this.dir, 'display.log');
    const size = `${spec.width}x${spec.height}`;
    const x =
      server === 'xtigervnc'
        ? this.spawnServer(tiger!, ['-displayfd', '3', '-geometry', size, '-depth', '24', '-nolisten', 'tcp', '-auth', xauth, '-rfbunixpath', socketPath, '-rfbunixmode', '0600', '-rfbport', '-1', '-SecurityTypes', 'None', '-AlwaysShared', '-desktop', 'holdfast'], logPath)
        : this.spawnServer(xvfb!, ['-displayfd', '3', '-screen', '0', `${size}x24`, '-nolisten', 'tcp', '-auth', xauth], logPath);
    let number: string;
    try {
      number = await displayNumber(x, DesktopLimits.VIRTUAL_START_MS);
    } catch (err) {
      await this.stop();
      throw unavailable(`${server === 'xtigervnc' ? 'Xtigervnc' : 'Xvfb'} did not start: ${(err as Error).message} (see ${logPath})`);
    }
    const xDisplay = `:${number}`;
    const env: DisplayEnv = { DISPLAY: xDisplay, XAUTHORITY: xauth };
    const childEnv = { ...this.env, ...env };
    if (server === 'xvfb') {
      this.spawnHelper(x11vnc!, ['-display', xDisplay, '-auth', xauth, '-unixsock', socketPath, '-rfbport', '0', '-shared', '-forever', '-nopw', '-quiet', '-noxrecord'], childEnv, logPath);
    }
    try {
      await waitConnectable(socketPath, DesktopLimits.VIRTUAL_START_MS);
    } catch (err) {
      await this.stop();
      throw unavailable(`the VNC server of ${xDisplay} did not open ${socketPath}: ${(err as Error).message} (see ${logPath})`);
    }
    const setxkbmap = which('setxkbmap', path);
    if (setxkbmap) await runQuiet(setxkbmap, ['-display', xDisplay, 'us'], childEnv);
    const wm = spec.window_manager ? which(spec.window_manager, path) : null;
    if (spec.window_manager && !wm) log(`window manager ${spec.window_manager} not found on PATH; the display runs without one`);
    if (wm) this.spawnHelper(wm, [], childEnv, logPath);
    this.running = { server, xDisplay, socketPath, env, pid: x.pid! };
    x.once('exit', (code, signal) => {
      if (this.running?.pid !== x.pid) return;
      log(`X server of ${xDisplay} exited (code ${code}, signal ${signal})`);
      void this.stop();
    });
    log(`private display ${xDisplay} (${server}, ${size}) ready on ${socketPath}`);
    this.onEnv(env);
    return this.running;
  }

  private spawnServer(bin: string, args: string[], logPath: string): ChildProcess {
    const fd = openSync(logPath, 'a', 0o600);
    try {
      const child = spawn(bin, args, { stdio: ['ignore', fd, fd, 'pipe'], env: this.env });
      child.on('error', (err) => log(`${bin} failed`, err));
      this.children.push(child);
      return child;
    } finally {
      closeSync(fd);
    }
  }

  private spawnHelper(bin: string, args: string[], env: NodeJS.ProcessEnv, logPath: string): ChildProcess {
    const fd = openSync(logPath, 'a', 0o600);
    try {
      const child = spawn(bin, args, { stdio: ['ignore', fd, fd], env });
      child.on('error', (err) => log(`${bin} failed`, err));
      this.children.push(child);
      return child;
    } finally {
      closeSync(fd);
    }
  }
}

function unavailable(message: string): HoldfastError {
  return new HoldfastError('DESKTOP_UNAVAILABLE', message, { retryable: false });
}

/** Reads the display number the X server writes to fd 3 (`-displayfd 3`). */
function displayNumber(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const pipe = child.stdio[3] as NodeJS.ReadableStream | null;
    if (!pipe) {
      reject(new Error('no display-number pipe'));
      return;
    }
    let text = '';
    const timer = setTimeout(() => done(new Error(`no display number within ${timeoutMs} ms`)), timeoutMs);
    const done = (err: Error | null, n?: string): void => {
      clearTimeout(timer);
      pipe.removeAllListeners('data');
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(n!);
    };
    const onExit = (code: number | null, signal: string | null): void => done(new Error(`it exited (code ${code}, signal ${signal})`));
    child.once('exit', onExit);
    pipe.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const m = /^(\d+)\n/.exec(text);
      if (m) done(null, m[1]);
    });
  });
}

async function waitConnectable(path: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let wait = 5;
  for (;;) {
    if (existsSync(path) && (await canConnect(path))) return;
    if (Date.now() > until) throw new Error(`not connectable within ${timeoutMs} ms`);
    await delay(wait);
    wait = Math.min(wait * 2, 100);
  }
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ path });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function runQuiet(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve) => {
    const c = spawn(bin, args, { stdio: 'ignore', env });
    const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
    c.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    c.once('error', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function terminate(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null || c.pid === undefined) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  const timer = setTimeout(() => c.kill('SIGKILL'), 1000);
  await exited;
  clearTimeout(timer);
}
