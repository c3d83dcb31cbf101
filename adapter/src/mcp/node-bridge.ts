import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyBudget } from './limits.js';

/**
 * The seam between `node:http` and the SDK's web-standard `Request`/`Response`: reading a body
 * under a byte limit, building the `Request` the SDK takes, and streaming a `Response` back with
 * write back-pressure.
 */

/**
 * Outcome of {@link readBody}. `held`: bytes taken from the body budget, to give back when the
 * request has been answered. `busy`: the body budget is spent (answer 503).
 */
export type BodyOutcome = { ok: true; body: Buffer; held: number } | { ok: false; reason: 'too_large' | 'aborted' | 'busy' | 'too_slow' };

/** Read deadline of a body: checked every `intervalMs`; `behind(received, elapsedMs)` ends it (`too_slow`). */
export interface BodyDeadline {
  intervalMs: number;
  behind: (receivedBytes: number, elapsedMs: number) => boolean;
}

/**
 * Reads a request body of at most `maxBytes`. A declared `Content-Length` over the limit is
 * refused before anything is read; otherwise reading stops as soon as the limit is passed. With a
 * `budget`, every chunk is counted against it as it arrives (a declared length that does not fit
 * what is left is refused at once); on any failure the bytes taken are given back. With a
 * `deadline`, a body that falls behind it ends with `too_slow` (issue 18).
 */
export function readBody(req: IncomingMessage, maxBytes: number, budget?: BodyBudget, deadline?: BodyDeadline): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, reason: 'too_large' });
  if (budget !== undefined && Number.isFinite(declared) && declared > budget.available) return Promise.resolve({ ok: false, reason: 'busy' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let held = 0;
    let settled = false;
    const started = Date.now();
    const timer = deadline
      ? setInterval(() => {
          if (deadline.behind(total, Date.now() - started)) {
            chunks.length = 0;
            finish({ ok: false, reason: 'too_slow' });
          }
        }, deadline.intervalMs)
      : null;
    const finish = (v: BodyOutcome): void => {
      if (settled) return;
      settled = true;
      if (timer) clearInterval(timer);
      if (!v.ok && held > 0) {
        budget?.give(held);
        held = 0;
      }
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(v);
    };
    const onData = (chunk: Buffer): void => {
      if (settled) return;
      total += chunk.length;
      if (total > maxBytes) {
        chunks.length = 0;
        finish({ ok: false, reason: 'too_large' });
        return;
      }
      if (budget !== undefined) {
        if (!budget.tryTake(chunk.length)) {
          chunks.length = 0;
          finish({ ok: false, reason: 'busy' });
          return;
        }
        held += chunk.length;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), held });
    const onError = (): void => finish({ ok: false, reason: 'aborted' });
    const onClose = (): void => {
      if (!req.complete) finish({ ok: false, reason: 'aborted' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Builds the web `Request` for the SDK. When the body parsed as JSON the SDK gets it as
 * `parsedBody` and the `Request` carries no body (nothing is copied or parsed twice); otherwise
 * the raw text goes along so the SDK answers the parse error itself.
 */
export function toWebRequest(req: IncomingMessage, url: string, rawBody: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection' || lower === 'keep-alive') continue;
    headers.append(name, raw[i + 1]!);
  }
  const init: RequestInit = { method: req.method ?? 'GET', headers, signal };
  if (rawBody !== undefined) init.body = rawBody;
  return new Request(url, init);
}

/** Writes a small JSON answer (refusals) and ends the response. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A JSON-RPC error body without a request id (transport-level refusals). */
export function rpcErrorBody(message: string, code = -32000): unknown {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * Streams a web `Response` into a Node response, honouring back-pressure. Stops (and cancels the
 * web body, so the SDK cleans up its stream) when `signal` aborts or the client goes away.
 * @returns when the response has ended.
 */
export async function writeWebResponse(res: ServerResponse, response: Response, signal: AbortSignal): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = (): void => {
    void reader.cancel().catch(() => undefined);
  };
  signal.addEventListener('abort', stop, { once: true });
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = (): void => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
      }
    }
  } catch {
    // the stream was cancelled or failed; end what was sent
  } finally {
    signal.removeEventListener('abort', stop);
    res.off('close', stop);
    if (!res.writableEnded) res.end();
  }
}
