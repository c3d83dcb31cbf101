import { Transform, type TransformCallback } from 'node:stream';

/**
 * The size limit of `holdfast serve --stdio` (docs/http-security.md "Oversize messages"): stdin is
 * newline-delimited JSON-RPC (MCP stdio transport). A line longer than the limit
 * (`limits.max_body_bytes`, the same as an HTTP body) is never buffered past the limit nor handed
 * to the SDK: it is read through to its newline, its top-level `id` is recovered on the way (a
 * byte-level scan that keeps no more than the id), and the client gets JSON-RPC error -32600
 * (Invalid Request) with that id — `null` when there is none to recover (JSON-RPC 2.0 §5). The
 * next line is read as usual: the connection stays usable. (The SDK's own read buffer throws at
 * 10 MiB and closes the transport without an answer.)
 */

/** JSON-RPC 2.0 §5.1: "The JSON sent is not a valid Request object." */
export const INVALID_REQUEST = -32600;

/** What {@link StdioLineLimiter} reports for a line it dropped. */
export interface OversizeLine {
  /** The line's top-level `id` (string or number), or null when it has none or is not an object. */
  id: string | number | null;
  /** Its length in bytes, without the newline. */
  bytes: number;
}

const MAX_ID_CHARS = 1024;

/**
 * Recovers the top-level `"id"` member of a JSON object fed in pieces, keeping only the id's text
 * (≤ 1 KiB). Tracks strings, escapes and nesting, so an `"id"` inside `params` is not taken.
 */
export class TopLevelIdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private topIsObject: boolean | null = null;
  private expectKey = false;
  private readingKey = false;
  private key = '';
  private capturing = false;
  private captured = '';
  private idText: string | null = null;

  feed(b: Buffer): void {
    for (let i = 0; i < b.length; i++) this.byte(b[i]!);
  }

  private byte(c: number): void {
    const ch = String.fromCharCode(c);
    if (this.inString) {
      if (this.capturing && this.captured.length < MAX_ID_CHARS) this.captured += ch;
      if (this.escaped) this.escaped = false;
      else if (c === 0x5c) this.escaped = true;
      else if (c === 0x22) {
        this.inString = false;
        if (this.readingKey) this.readingKey = false;
        return;
      }
      if (this.readingKey && this.key.length < 8) this.key += ch;
      return;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) return;
    if (c === 0x22) {
      this.inString = true;
      if (this.depth === 1 && this.expectKey) {
        this.readingKey = true;
        this.expectKey = false;
        this.key = '';
      } else if (this.capturing && this.captured.length < MAX_ID_CHARS) this.captured += ch;
      return;
    }
    if (c === 0x7b || c === 0x5b) {
      if (this.depth === 0 && this.topIsObject === null) this.topIsObject = c === 0x7b;
      if (this.depth === 1 && this.capturing) this.captured = '{'; // not an id a request may carry
      this.depth++;
      if (this.depth === 1 && c === 0x7b) this.expectKey = true;
      return;
    }
    if (c === 0x7d || c === 0x5d) {
      if (this.depth === 1) this.endValue();
      this.depth = Math.max(0, this.depth - 1);
      return;
    }
    if (this.depth !== 1) return;
    if (c === 0x3a) {
      if (this.key === 'id' && this.idText === null) {
        this.capturing = true;
        this.captured = '';
      }
      this.key = '';
      return;
    }
    if (c === 0x2c) {
      this.endValue();
      this.expectKey = true;
      return;
    }
    if (this.capturing && this.captured.length < MAX_ID_CHARS) this.captured += ch;
  }

  private endValue(): void {
    if (!this.capturing) return;
    this.capturing = false;
    this.idText = this.captured;
  }

  /** The id found so far: a string or finite number, else null. */
  id(): string | number | null {
    if (this.topIsObject !== true || this.idText === null) return null;
    try {
      const v: unknown = JSON.parse(Buffer.from(this.idText, 'latin1').toString('utf8'));
      if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v;
    } catch {
      // not a JSON value
    }
    return null;
  }
}

const NL = Buffer.from('\n');

/**
 * Splits stdin into lines and passes each line of at most `maxBytes` bytes on, newline included,
 * as its own chunk; a longer line is dropped and reported through `onOversize` (with its
 * recovered id) when its newline arrives. Memory: at most `maxBytes` of one line at a time.
 */
export class StdioLineLimiter extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping: TopLevelIdScanner | null = null;
  private dropped = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversize: (line: OversizeLine) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(0x0a, at);
      const piece = chunk.subarray(at, nl < 0 ? chunk.length : nl);
      if (this.dropping) {
        this.dropping.feed(piece);
        this.dropped += piece.length;
      } else if (this.size + piece.length > this.maxBytes) {
        this.dropping = new TopLevelIdScanner();
        for (const p of this.parts) this.dropping.feed(p);
        this.dropping.feed(piece);
        this.dropped = this.size + piece.length;
        this.parts = [];
        this.size = 0;
      } else if (piece.length > 0) {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl < 0) break;
      if (this.dropping) {
        const id = this.dropping.id();
        const bytes = this.dropped;
        this.dropping = null;
        this.dropped = 0;
        this.onOversize({ id, bytes });
      } else {
        this.push(Buffer.concat([...this.parts, NL]));
        this.parts = [];
        this.size = 0;
      }
      at = nl + 1;
    }
    cb();
  }

  override _flush(cb: TransformCallback): void {
    // A last line without a newline is passed on as it is (the SDK ignores an unfinished line).
    if (!this.dropping && this.size > 0) this.push(Buffer.concat(this.parts));
    this.parts = [];
    cb();
  }
}

/** The JSON-RPC error line answering an oversize message. */
export function oversizeErrorLine(line: OversizeLine, maxBytes: number): string {
  const message =
    `Invalid Request: the message is ${line.bytes} bytes, more than this stdio server's limit of ${maxBytes} bytes ` +
    '(limits.max_body_bytes, --max-body-bytes); it was not read. Send smaller messages (e.g. write a large file in parts).';
  return JSON.stringify({ jsonrpc: '2.0', id: line.id, error: { code: INVALID_REQUEST, message, data: { limit_bytes: maxBytes, message_bytes: line.bytes } } }) + '\n';
}
