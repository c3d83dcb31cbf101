/**
 * Streaming parser of the guardian's shell-integration markers (DESIGN §5).
 *
 * The shell prints `ESC ] 633 ; HF<nonce> ; <kind>[;<arg>] BEL` (or `ESC \` as terminator) at
 * command boundaries. The nonce is random per guardian, so output that merely contains markers
 * (a log of another session, another terminal integration) is never taken for ours. It is no
 * secret from code the shell runs, though: whether an end marker is authentic is decided by the
 * command runner from the kernel's view of the shell (issue 18). The parser removes our markers
 * from the byte stream and reports
 * where they were; everything else — including other OSC 633 sequences — passes through as is.
 *
 * A marker may be split across chunks at any byte: a possible marker start at the end of a chunk
 * is held back until the next chunk decides. Held-back bytes are never lost: `flush()` returns
 * them when the stream ends.
 */

/** Marker kinds: prompt start, prompt end (input starts), command start, command done. */
export type MarkerKind = 'A' | 'B' | 'C' | 'D';

/** One item of parsed output, in stream order. */
export type ParsedItem = { data: Buffer } | { marker: MarkerKind; arg: string | null };

/** Longest marker body (`D;<exit code>`) we wait for before deciding it is not a marker, bytes. */
const MAX_BODY_BYTES = 32;
const BEL = 0x07;
const ESC = 0x1b;
const BACKSLASH = 0x5c;
const EMPTY = Buffer.alloc(0);

/** The OSC prefix of our markers for `nonce`: `ESC ] 633 ; HF<nonce> ;`. */
export function markerPrefix(nonce: string): Buffer {
  return Buffer.from(`\x1b]633;HF${nonce};`, 'latin1');
}

/** Builds one marker as the shell prints it (for tests). */
export function encodeMarker(nonce: string, kind: MarkerKind, arg?: string): Buffer {
  return Buffer.from(`\x1b]633;HF${nonce};${kind}${arg === undefined ? '' : `;${arg}`}\x07`, 'latin1');
}

export class MarkerParser {
  private readonly prefix: Buffer;
  private carry: Buffer = EMPTY;

  constructor(nonce: string) {
    this.prefix = markerPrefix(nonce);
  }

  /** Bytes currently held back (a possible marker start). */
  get pendingBytes(): number {
    return this.carry.length;
  }

  /**
   * Parses the next chunk. Returned `data` buffers may be views of `chunk`: consume them before
   * the chunk is reused.
   */
  push(chunk: Buffer): ParsedItem[] {
    const buf = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = EMPTY;
    const out: ParsedItem[] = [];
    const P = this.prefix;
    let pos = 0;
    for (;;) {
      const i = buf.indexOf(P, pos);
      if (i < 0) {
        const hold = this.partialPrefixAt(buf, pos);
        if (hold > pos) out.push({ data: buf.subarray(pos, hold) });
        if (hold < buf.length) this.carry = Buffer.from(buf.subarray(hold));
        return out;
      }
      if (i > pos) out.push({ data: buf.subarray(pos, i) });
      const bodyStart = i + P.length;
      const limit = Math.min(buf.length, bodyStart + MAX_BODY_BYTES);
      let k = bodyStart;
      let termLen = 0;
      for (; k < limit; k++) {
        const b = buf[k]!;
        if (b === BEL) {
          termLen = 1;
          break;
        }
        if (b === ESC) {
          if (k + 1 >= buf.length) break; // the terminator may be split: wait for more
          if (buf[k + 1] === BACKSLASH) termLen = 2;
          break;
        }
      }
      if (termLen > 0) {
        const body = buf.toString('latin1', bodyStart, k);
        const kind = body[0];
        if ((kind === 'A' || kind === 'B' || kind === 'C' || kind === 'D') && (body.length === 1 || body[1] === ';')) {
          out.push({ marker: kind, arg: body.length > 2 ? body.slice(2) : null });
        }
        // A malformed body with our nonce is still ours: dropped either way.
        pos = k + termLen;
        continue;
      }
      const waiting = k >= buf.length || (buf[k] === ESC && k + 1 >= buf.length);
      if (waiting && buf.length - bodyStart < MAX_BODY_BYTES) {
        this.carry = Buffer.from(buf.subarray(i));
        return out;
      }
      // Not a marker after all (no terminator in reach, or ESC not followed by `\`): pass it on.
      out.push({ data: buf.subarray(i, bodyStart) });
      pos = bodyStart;
    }
  }

  /** Returns (and forgets) held-back bytes: the stream ended, they were not a marker. */
  flush(): Buffer {
    const c = this.carry;
    this.carry = EMPTY;
    return c;
  }

  /**
   * Index from which the tail of `buf` could be the beginning of our prefix (bytes from there on
   * must be held back), or `buf.length` when nothing needs holding.
   */
  private partialPrefixAt(buf: Buffer, pos: number): number {
    const P = this.prefix;
    let j = buf.indexOf(ESC, Math.max(pos, buf.length - (P.length - 1)));
    while (j >= 0) {
      const n = buf.length - j;
      if (buf.compare(P, 0, n, j, buf.length) === 0) return j;
      j = buf.indexOf(ESC, j + 1);
    }
    return buf.length;
  }
}
