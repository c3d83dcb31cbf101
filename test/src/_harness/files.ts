import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TestHome } from './home.js';
import { openSession, toolCaller, type ToolReply } from './tools.js';

/** Tools a file-tool scenario may call. */
export const FILE_TOOLS = ['workspace', 'session', 'read', 'edit', 'move_out', 'observe', 'execute'];

/** sha256 hex (tests compare bytes by it). */
export const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** UTF-16LE bytes with a BOM. */
export const utf16le = (s: string): Buffer => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);

/**
 * A temp home with a running daemon and one session of principal `p` on its workspace, for the
 * file tool scenarios (issue 4). The daemon's trash is `<home>/xdg/Trash` (XDG_DATA_HOME), never
 * the user's.
 */
export class FileToolsFixture {
  readonly h: TestHome;
  rs = '';
  call!: (tool: string, args: Record<string, unknown>) => Promise<ToolReply>;

  constructor(config: Record<string, unknown> = {}) {
    this.h = new TestHome(config);
  }

  get ws(): string {
    return this.h.workspace;
  }

  /** Starts the daemon and opens the session. */
  async start(): Promise<void> {
    process.env.XDG_DATA_HOME = join(this.h.home, 'xdg');
    await this.h.startDaemon();
    const c = this.h.client();
    this.call = toolCaller(c, 'p', FILE_TOOLS);
    this.rs = await openSession(c);
  }

  /** `kill -9` the daemon and start a new one (the session is re-adopted). */
  async restartDaemon(): Promise<void> {
    await this.h.kill9Daemon();
    await this.h.startDaemon();
    this.call = toolCaller(this.h.client(), 'p', FILE_TOOLS);
  }

  /** A caller for another principal. */
  caller(principal: string): (tool: string, args: Record<string, unknown>) => Promise<ToolReply> {
    return toolCaller(this.h.client(), principal, FILE_TOOLS);
  }

  /** Writes a workspace file (folders made as needed). */
  write(rel: string, data: string | Buffer): void {
    mkdirSync(dirname(join(this.ws, rel)), { recursive: true });
    writeFileSync(join(this.ws, rel), data);
  }

  /** Bytes of a workspace file. */
  bytes(rel: string): Buffer {
    return readFileSync(join(this.ws, rel));
  }

  stop(): Promise<void> {
    return this.h.cleanup();
  }
}
