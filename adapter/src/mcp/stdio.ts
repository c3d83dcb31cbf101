import { format } from 'node:util';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Principal } from './principals.js';
import { buildServer, type ServerDeps } from './server-factory.js';
import { oversizeErrorLine, StdioLineLimiter } from './stdio-lines.js';

/**
 * `holdfast serve --stdio` (DESIGN §6.1): one MCP connection over stdin/stdout, either era (the
 * SDK answers `server/discover` and the 2025 `initialize` handshake alike). stdout carries
 * protocol messages only: every console method is sent to stderr. When stdin closes the adapter
 * ends — after in-flight calls answered, or a short grace — and the daemon and every session
 * carry on (the adapter owns nothing, DESIGN §1).
 */
export interface RunningStdio {
  /** Resolves when stdin has closed (the client went away). */
  ended: Promise<void>;
  close(): Promise<void>;
}

/** Routes `console.*` to stderr so nothing but protocol frames reaches stdout. */
export function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]): void => {
    process.stderr.write(format(...args) + '\n');
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
  console.error = toStderr;
}

/**
 * Serves MCP on stdio as `principal`. A message (line) longer than `maxMessageBytes` is answered
 * with JSON-RPC -32600 and skipped; the connection goes on ({@link StdioLineLimiter}).
 */
export function startStdio(deps: ServerDeps, principal: Principal, log: (line: string) => void, maxMessageBytes: number): RunningStdio {
  keepStdoutForProtocol();
  const lines = new StdioLineLimiter(maxMessageBytes, (line) => {
    log(`mcp: refused a ${line.bytes}-byte stdio message (limit ${maxMessageBytes} bytes), id ${JSON.stringify(line.id)}`);
    process.stdout.write(oversizeErrorLine(line, maxMessageBytes));
  });
  process.stdin.pipe(lines);
  // Every chunk the limiter passes on is one complete line of at most maxMessageBytes.
  const transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: maxMessageBytes + 2 });
  const handle = serveStdio(() => buildServer(deps, 'stdio', () => principal), {
    legacy: 'serve',
    transport,
    onerror: (err) => log(`mcp: ${err.message}`),
  });
  const ended = new Promise<void>((resolve) => {
    const done = (): void => resolve();
    process.stdin.once('end', done);
    process.stdin.once('close', done);
    process.stdout.once('error', done); // the reader went away (EPIPE)
  });
  return { ended, close: () => handle.close() };
}
