/**
 * The echo of a line the guardian typed, as the agent should see it (issue 9, item 8).
 *
 * A command that is not typed literally reaches bash as `__hf_c=$'…'; eval …` (command-line.ts)
 * and readline echoes that line. While such a line is on its way, the PTY host hands every clean
 * byte to {@link EchoRewriter} instead of the log; at the command's start marker (`C`) the held
 * bytes up to readline's first `\r\n` — the echo — are replaced by the command as sent, and
 * everything from that `\r\n` on is kept (bracketed-paste off, the user's `PS0`). The log, and so
 * the screen model, `holdfast attach` and the PTY log replay, show the command; offsets are
 * offsets in that rewritten stream. Any other marker, a missing `\r\n`, too many held bytes or
 * {@link release} give the bytes back untouched: the rewrite never loses output.
 */
export class EchoRewriter {
  private held: Buffer[] | null = null;
  private heldBytes = 0;
  private display: Buffer = Buffer.alloc(0);

  /** Held bytes beyond this are released untouched (a line that is not ours). */
  static readonly MAX_HELD_BYTES = 256 * 1024;

  /** True while bytes are held. */
  get holding(): boolean {
    return this.held !== null;
  }

  /** Starts holding for a typed line that should read as `display`. Releases what was held before. */
  expect(display: string): Buffer | null {
    const before = this.release();
    this.held = [];
    this.heldBytes = 0;
    this.display = renderDisplay(display);
    return before;
  }

  /** Clean data: returns what to append now (null while it is held). */
  data(chunk: Buffer): Buffer | null {
    if (this.held === null) return chunk;
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    return this.heldBytes > EchoRewriter.MAX_HELD_BYTES ? this.release() : null;
  }

  /** A marker arrived: what to append before it (rewritten at the start marker `C`). */
  marker(kind: string): Buffer | null {
    if (this.held === null) return null;
    if (kind !== 'C') return this.release();
    const all = Buffer.concat(this.held);
    this.held = null;
    const nl = all.indexOf('\r\n');
    if (nl < 0) return all.length > 0 ? all : null;
    return Buffer.concat([this.display, all.subarray(nl)]);
  }

  /** Stops holding and returns the held bytes untouched (null when none). */
  release(): Buffer | null {
    if (this.held === null) return null;
    const all = Buffer.concat(this.held);
    this.held = null;
    return all.length > 0 ? all : null;
  }
}

/** The command as a terminal shows it: lines joined by `\r\n`, control characters as `^X`. */
export function renderDisplay(text: string): Buffer {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (ch === '\n') out += '\r\n';
    else if (ch === '\t') out += ch;
    else if (c < 0x20) out += `^${String.fromCharCode(c + 0x40)}`;
    else if (c === 0x7f) out += '^?';
    else if (c >= 0x80 && c < 0xa0) out += `\\x${c.toString(16)}`;
    else out += ch;
  }
  return Buffer.from(out, 'utf8');
}
