import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readPairingCookie } from './pairing.js';

/** One request as a {@link LoopbackHandler} sees it (already past the Host/Origin/body checks). */
export interface LoopbackRequest {
  method: string;
  /** Path without query or fragment. */
  path: string;
  /** Parsed JSON body of a POST (null for GET). */
  body: unknown;
  /** The pairing cookie's value, if sent. */
  cookie: string | null;
  /** The `X-CSRF-Token` header, if sent. */
  csrf: string | null;
}

/** A handler's answer: JSON (`json`) or an HTML page (`html`, with the CSP nonce its inline script uses). */
export type LoopbackResponse = { status: number; json: unknown; setCookie?: string } | { status: number; html: string; nonce: string };

export type LoopbackHandler = (req: LoopbackRequest) => LoopbackResponse | Promise<LoopbackResponse>;

/** Largest request body, bytes. */
const MAX_BODY_BYTES = 64 * 1024;

/** Headers on every answer: nothing cached, sniffed, framed or referred. */
const BASE_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * A small HTTP server on `127.0.0.1` (a free port) for pages the user opens on this machine (issue
 * 12 secret pages; issue 16's desktop panel): refuses — before the handler runs — a `Host` that is
 * not this loopback address (403, DNS rebinding), a state-changing request whose `Origin` is not
 * this server (403, cross-site requests) or whose body is not JSON (415) or larger than 64 KiB
 * (413). Every answer is `no-store`, unframeable and sent without a referrer; an HTML answer may
 * run only its own nonce'd inline script (CSP).
 */
export class LoopbackServer {
  private server: Server | null = null;
  private port = 0;

  constructor(private readonly handler: LoopbackHandler) {}

  /** `http://127.0.0.1:PORT` once listening. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get listening(): boolean {
    return this.server !== null;
  }

  /** Listens on 127.0.0.1 (port 0: the kernel picks a free one); resolves with the port. */
  async listen(): Promise<number> {
    if (this.server) return this.port;
    const server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this.port;
  }

  /** Stops listening and closes open connections. */
  close(): void {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.close();
    s.closeAllConnections();
  }

  private allowedOrigins(): string[] {
    return [`http://127.0.0.1:${this.port}`, `http://localhost:${this.port}`];
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, headers: Record<string, string>, body: string): void => {
      res.writeHead(status, { ...BASE_HEADERS, 'content-security-policy': "default-src 'none'; frame-ancestors 'none'", ...headers });
      res.end(body);
    };
    const refuse = (status: number, error: string): void => send(status, { 'content-type': 'application/json' }, JSON.stringify({ error }));
    try {
      const host = req.headers.host ?? '';
      if (!this.allowedOrigins().some((o) => o === `http://${host}`)) return refuse(403, 'host not allowed');
      const method = req.method ?? 'GET';
      let body: unknown = null;
      if (method !== 'GET' && method !== 'HEAD') {
        if (method !== 'POST') return refuse(405, 'method not allowed');
        if (!this.allowedOrigins().includes(req.headers.origin ?? '')) return refuse(403, 'origin not allowed');
        if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return refuse(415, 'JSON only');
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const c of req) {
          size += (c as Buffer).length;
          if (size > MAX_BODY_BYTES) return refuse(413, 'body too large');
          chunks.push(c as Buffer);
        }
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return refuse(400, 'invalid JSON');
        }
      }
      const path = (req.url ?? '/').split(/[?#]/)[0]!;
      const csrf = req.headers['x-csrf-token'];
      const out = await this.handler({ method, path, body, cookie: readPairingCookie(req.headers.cookie), csrf: typeof csrf === 'string' ? csrf : null });
      if ('html' in out) {
        send(out.status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': `default-src 'none'; script-src 'nonce-${out.nonce}'; style-src 'nonce-${out.nonce}'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'` }, out.html);
      } else {
        send(out.status, { 'content-type': 'application/json', ...(out.setCookie ? { 'set-cookie': out.setCookie } : {}) }, JSON.stringify(out.json));
      }
    } catch {
      if (!res.headersSent) refuse(500, 'internal error');
      else res.destroy();
    }
  }
}
