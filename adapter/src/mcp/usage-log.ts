import { chmodSync, closeSync, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The usage log `logs/usage.jsonl` (DESIGN §6.2): one JSON line per tool call with what was called,
 * by whom, how long it took and how it ended. By construction it never holds arguments, file
 * contents, outputs or tokens: {@link UsageRecord} has no field that could carry them.
 */
export interface UsageRecord {
  /** ISO time the call finished. */
  ts: string;
  tool: string;
  /** Principal name. */
  principal: string;
  /** `legacy` (2025-11-25), `modern` (2026-07-28) or `stdio`. */
  era: string;
  /** JSON-RPC request id as a string, or null. */
  request_id: string | null;
  /** Envelope status (`succeeded`, `failed`, …), or `refused` / `invalid` / `error` from the adapter. */
  status: string;
  /** Error code when the call failed. */
  error_code: string | null;
  duration_ms: number;
  /** Size of the result sent to the client (content + structuredContent as JSON), bytes. */
  bytes: number;
}

/** Lines are written at most this long after their call, in one write per batch (ms). */
export const USAGE_FLUSH_MS = 50;

/**
 * Appends usage records (file mode 0600, directory 0700); writes never block a request. Records
 * are batched: one file write per {@link USAGE_FLUSH_MS} instead of one per call (a write per call
 * was 4 % of a small read's adapter time, issue 10); `close` writes what is pending.
 */
export class UsageLog {
  private stream: WriteStream | null;
  private pending: string[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Create with 0600 (or keep the existing file), then force 0600 in case it pre-existed wider.
    closeSync(openSync(path, 'a', 0o600));
    chmodSync(path, 0o600);
    this.stream = createWriteStream(path, { flags: 'a' });
    this.stream.on('error', (err) => {
      process.stderr.write(`holdfast: usage log ${path}: ${err.message}\n`);
      this.stream = null;
    });
  }

  write(rec: UsageRecord): void {
    if (this.stream === null) return;
    this.pending.push(JSON.stringify(rec) + '\n');
    this.timer ??= setTimeout(() => this.flush(), USAGE_FLUSH_MS).unref();
  }

  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const lines = this.pending.join('');
    this.pending = [];
    this.stream?.write(lines);
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    this.flush();
    const s = this.stream;
    this.stream = null;
    if (!s) return Promise.resolve();
    return new Promise((resolve) => s.end(resolve));
  }
}
