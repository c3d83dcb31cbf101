import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import sharp from 'sharp';
import { pollUntil, REPO_ROOT } from './home.js';
import type { Envelope } from './mcp-adapter.js';

/**
 * Real desktop components for the desktop tests (issue 15): Xvfb displays (numbers from
 * `-displayfd`, keymap pinned to `us`), x11vnc servers (ports from `-autoport`, read back from its
 * `PORT=` line), the recorder window (test/fixtures/desktop-recorder.py), a private D-Bus session
 * with gnome-keyring's Secret Service, and PNG decoding. Every process inherits this test run's
 * environment (the leak marker) and is stopped by the test.
 */

/** The recorder window script. */
export const RECORDER = join(REPO_ROOT, 'test', 'fixtures', 'desktop-recorder.py');
/** Debian's python3 (python3-tk is installed for it, not for a pyenv shim earlier on PATH). */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** Stops a child: SIGTERM, SIGKILL after 2 s; resolves once it exited. */
export async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  const t = setTimeout(() => c.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(t);
}

/** A running Xvfb. */
export interface XServer {
  display: string;
  child: ChildProcess;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts Xvfb `WxH` on a display it picks (`-displayfd`), with the `us` keymap. */
export async function startXvfb(width: number, height: number): Promise<XServer> {
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const number = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb gave no display number: ${err}`)), 15_000);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      text += d.toString();
      const m = /^(\d+)\n/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited ${code}: ${err}`));
    });
  });
  const display = `:${number}`;
  const env = { ...stringEnv(), DISPLAY: display };
  spawnSync('setxkbmap', ['-display', display, 'us'], { env, stdio: 'ignore', timeout: 10_000 });
  return { display, child, env, stop: () => stopChild(child) };
}

/** A running x11vnc. */
export interface VncServer {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts x11vnc on `display`, on 127.0.0.1 only, with a password file when given, on a free port
 * it finds itself (`-autoport` from a random base) — or exactly `port` (a restart).
 */
export async function startX11vnc(display: string, opts: { passwordFile?: string; port?: number } = {}): Promise<VncServer> {
  const portArgs = opts.port !== undefined ? ['-rfbport', String(opts.port)] : ['-autoport', String(20000 + Math.floor(Math.random() * 30000))];
  const auth = opts.passwordFile ? ['-rfbauth', opts.passwordFile] : ['-nopw'];
  const child = spawn('x11vnc', ['-display', display, '-localhost', '-shared', '-forever', '-quiet', '-noxrecord', ...auth, ...portArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.length > 20_000) err = err.slice(-10_000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`x11vnc printed no PORT= line: ${err.slice(-2000)}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /PORT=(\d+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`x11vnc exited ${code}: ${err.slice(-2000)}`));
    });
  });
  return { port, child, stop: () => stopChild(child) };
}

/** Writes an x11vnc password file (`x11vnc -storepasswd`). */
export function storeVncPassword(password: string, file: string): void {
  const r = spawnSync('x11vnc', ['-storepasswd', password, file], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error('x11vnc -storepasswd failed');
}

/** One line of the recorder's log. */
export interface RecorderEvent {
  ev: string;
  button?: number;
  x?: number;
  y?: number;
  char?: string;
  keysym?: string;
  combo?: string;
  dir?: string;
  from?: [number, number];
  to?: [number, number];
  moves?: number;
  w?: number;
  h?: number;
}

/** Reads a recorder log. */
export function recorderEvents(logFile: string): RecorderEvent[] {
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as RecorderEvent);
}

/** Starts the recorder on `env.DISPLAY` and waits until its window is mapped. */
export async function startRecorder(env: Record<string, string>, logFile: string, geometry: string, colour = '#ff00ff'): Promise<ChildProcess> {
  const child = spawn(PYTHON, [RECORDER, logFile, geometry, colour], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await pollUntil('the recorder window', () => {
    if (child.exitCode !== null) throw new Error(`recorder exited ${child.exitCode}: ${err}`);
    return recorderEvents(logFile).some((e) => e.ev === 'ready');
  }, 20_000);
  return child;
}

/** Text typed into the recorder (key events with a character). */
export function typedText(events: RecorderEvent[]): string {
  return events
    .filter((e) => e.ev === 'key' && e.char)
    .map((e) => e.char)
    .join('');
}

/** A decoded image: RGB bytes, row-major. */
export interface Rgb {
  width: number;
  height: number;
  data: Buffer;
}

/** Decodes base64 PNG image content. */
export async function decodePng(base64: string): Promise<Rgb> {
  const { data, info } = await sharp(Buffer.from(base64, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** The bounding box of pixels within `tolerance` of `rgb`, or null. */
export function findColour(img: Rgb, rgb: [number, number, number], tolerance = 12): { x: number; y: number; width: number; height: number; count: number } | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -1;
  let maxY = -1;
  let count = 0;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const o = (y * img.width + x) * 3;
      if (Math.abs(img.data[o]! - rgb[0]) <= tolerance && Math.abs(img.data[o + 1]! - rgb[1]) <= tolerance && Math.abs(img.data[o + 2]! - rgb[2]) <= tolerance) {
        count++;
        if (x < minX) minX = x;
        if (y < minY) minY = y;
        if (x > maxX) maxX = x;
        if (y > maxY) maxY = y;
      }
    }
  }
  return count === 0 ? null : { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1, count };
}

/** A private D-Bus session bus with gnome-keyring's Secret Service, unlocked. */
export interface SecretService {
  env: { DBUS_SESSION_BUS_ADDRESS: string };
  stop(): Promise<void>;
}

/**
 * Starts `dbus-daemon --session` and `gnome-keyring-daemon --foreground --unlock
 * --components=secrets` on it (unlocked with a non-empty password on stdin), for keyring tests.
 * `home` is the HOME both run with (the keyring files go there).
 */
export async function startSecretService(home: string): Promise<SecretService> {
  const env = { ...stringEnv(), HOME: home, XDG_DATA_HOME: join(home, '.local', 'share'), XDG_RUNTIME_DIR: home };
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', `--address=unix:path=${join(home, 'bus')}`], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('dbus-daemon printed no address')), 10_000);
    bus.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        resolve(text.split('\n')[0]!.trim());
      }
    });
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited ${code}`)));
  });
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env: { ...env, DBUS_SESSION_BUS_ADDRESS: address }, stdio: ['pipe', 'ignore', 'ignore'] });
  keyring.stdin!.end('holdfast-test-keyring-unlock');
  const busEnv = { DBUS_SESSION_BUS_ADDRESS: address };
  // Ready when the Secret Service name answers on the bus.
  await pollUntil('the Secret Service on the test bus', () => {
    if (keyring.exitCode !== null) throw new Error(`gnome-keyring-daemon exited ${keyring.exitCode}`);
    const r = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], {
      env: { ...env, ...busEnv },
      encoding: 'utf8',
      timeout: 5000,
    });
    return r.stdout.includes('boolean true');
  }, 15_000);
  return {
    env: busEnv,
    stop: async () => {
      await stopChild(keyring);
      await stopChild(bus);
    },
  };
}

/** process.env without undefined values. */
export function stringEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Regular files under `root` (depth ≤ 6, ≤ 16 MiB each; optionally only those modified at or
 * after `newerThanMs`) whose bytes contain `needle`, skipping directory names in `skip`. For
 * "the password is written nowhere" checks.
 */
export function grepTree(root: string, needle: string, skip: string[] = [], newerThanMs?: number): string[] {
  const want = Buffer.from(needle);
  const hits: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (depth < 6 && !skip.includes(n)) walk(p, depth + 1);
      } else if (st.isFile() && st.size <= 16 * 1024 * 1024 && (newerThanMs === undefined || st.mtimeMs >= newerThanMs)) {
        try {
          if (readFileSync(p).includes(want)) hits.push(p);
        } catch {
          // unreadable or gone
        }
      }
    }
  };
  walk(root, 0);
  return hits;
}

/** A tool result with its envelope and image contents (base64 PNG). */
export interface DesktopToolResult {
  env: Envelope;
  isError: boolean;
  images: string[];
}

/**
 * Tool calls for one session: `call` returns the result whatever it is; `ok` asserts it did not
 * fail. `remote_session_id` is added from `session()` (read at call time).
 */
export function sessionTools(client: () => Client, session: () => string) {
  const call = async (name: string, args: Record<string, unknown>): Promise<DesktopToolResult> => {
    const r = (await client().callTool({ name, arguments: { remote_session_id: session(), ...args } })) as { structuredContent?: unknown; isError?: boolean; content?: { type: string; data?: string }[] };
    return { env: r.structuredContent as Envelope, isError: r.isError === true, images: (r.content ?? []).filter((x) => x.type === 'image').map((x) => x.data!) };
  };
  const ok = async (name: string, args: Record<string, unknown>): Promise<DesktopToolResult> => {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.env.error)}`);
    return r;
  };
  return { call, ok };
}
