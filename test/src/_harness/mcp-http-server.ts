import { createServer } from 'node:http';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';

/**
 * Serves SDK v2 servers over Streamable HTTP on 127.0.0.1 (port 0) for tests and benchmarks: a
 * fresh server per request from `factory` (both protocol eras), Host/Origin checks, and — with
 * `authorization` — a 401 for any other `Authorization` header. Prints `listening <url>` on stdout
 * once bound and exits on SIGTERM.
 */
export function serveMcpHttp(factory: () => McpServer, authorization?: string): void {
  const node = toNodeHandler(createMcpHandler(() => factory()));
  const host = localhostHostValidation();
  const origin = localhostOriginValidation();
  const server = createServer((req, res) => {
    if (!host(req, res) || !origin(req, res)) return;
    if (authorization && req.headers.authorization !== authorization) {
      res.writeHead(401).end();
      return;
    }
    void node(req, res);
  });
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    if (a && typeof a === 'object') process.stdout.write(`listening http://127.0.0.1:${a.port}/mcp\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
