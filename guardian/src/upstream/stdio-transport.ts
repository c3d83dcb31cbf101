import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import type { SegmentLog } from '@holdfast/shared/protocol';
import { UpstreamLimits } from '../constants.js';
import { killEscalate } from '../process-killer.js';

/** After the process exited, wait at most this for its stdout to close, ms. */
const PIPE_DRAIN_MS = 300;

/** How a stdio server process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What {@link GroupStdioTransport} starts. */
export interface StdioProcessSpec {
  command: string;
  args: string[];
  /** The complete environment of the process. */
  env: Record<string, string>;
  cwd: string;
  /** Receives every byte the server writes to stderr. */
  stderr: SegmentLog;
}

/**
 * MCP stdio client transport for a server the guardian owns (issue 13, DESIGN §5.1): like the
 * SDK's `StdioClientTransport` (newline-delimited JSON-RPC on stdin/stdout, its `ReadBuffer` and
 * `serializeMessage`), but the process leads its own process group and session (`detached`), so
 * the session's kill escalation reaches it and everything it starts, and its stderr goes to a
 * capped log in the session folder instead of the guardian's own stderr.
 *
 * `close()` ends stdin, waits {@link UpstreamLimits.CLOSE_GRACE_MS} for the process to exit, then
 * runs the kill escalation (SIGHUP → SIGTERM → SIGKILL) over its group and session. `exited`
 * resolves with the exit status however the process ended; `onclose` fires once after that.
 */
export class GroupStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  private child: ChildProcess | null = null;
  private readonly buffer = new ReadBuffer();
  private exitStatus: ProcessExit | null = null;
  private markExited!: (e: ProcessExit) => void;
  /** Resolves with the exit status once the process has exited. */
  readonly exited = new Promise<ProcessExit>((r) => (this.markExited = r));

  constructor(private readonly spec: StdioProcessSpec) {}

  /** Process id (and process group id) once started, else null. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The exit status, or null while the process runs (or never started). */
  get exit(): ProcessExit | null {
    return this.exitStatus;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('GroupStdioTransport already started'));
    const s = this.spec;
    return new Promise<void>((resolve, reject) => {
      const child = spawn(s.command, s.args, { cwd: s.cwd, env: s.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      this.child = child;
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.once('error', (err) => {
        if (!spawned) {
          this.finish({ code: null, signal: null });
          reject(err);
        } else this.onerror?.(err);
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let msg: JSONRPCMessage | null;
          try {
            msg = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (msg === null) break;
          this.onmessage?.(msg);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => s.stderr.append(chunk));
      child.stdin!.on('error', (err) => this.onerror?.(err));
      child.stdout!.on('error', (err) => this.onerror?.(err));
      child.once('exit', (code, signal) => {
        // Answers written just before the exit are still in the pipe: let stdout drain first
        // (bounded: a grandchild may hold the pipe open).
        const done = (): void => this.finish({ code, signal });
        child.once('close', done);
        setTimeout(done, PIPE_DRAIN_MS).unref();
      });
      child.unref();
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exitStatus || stdin.destroyed) return Promise.reject(new Error('the upstream server process is not running'));
    return new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.exitStatus) return;
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    const grace = new Promise<void>((r) => setTimeout(r, UpstreamLimits.CLOSE_GRACE_MS).unref());
    await Promise.race([this.exited, grace]);
    if (!this.exitStatus && child.pid !== undefined) await killEscalate({ groups: [child.pid], sessions: [child.pid] });
    await Promise.race([this.exited, new Promise<void>((r) => setTimeout(r, UpstreamLimits.EXIT_SETTLE_MS).unref())]);
  }

  private finish(e: ProcessExit): void {
    if (this.exitStatus) return;
    this.exitStatus = e;
    this.buffer.clear();
    this.markExited(e);
    this.onclose?.();
  }
}
