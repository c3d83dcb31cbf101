/**
 * An async pull reader over a byte stream (the RFB parser's input): `read(n)` resolves with
 * exactly n bytes once they arrived, or rejects when the stream ended first. Chunks are kept in
 * a list and only joined for a read that spans several (no quadratic copying of large updates).
 */
export class ByteReader {
  private chunks: Buffer[] = [];
  private head = 0;
  private buffered = 0;
  private waiter: { n: number; resolve: () => void } | null = null;
  private endError: Error | null = null;

  /** Bytes received and not yet read. */
  get available(): number {
    return this.buffered;
  }

  /** Appends received bytes. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const w = this.waiter;
    if (w && this.buffered >= w.n) {
      this.waiter = null;
      w.resolve();
    }
  }

  /** The stream ended: pending and later reads reject with `err`. */
  end(err: Error): void {
    this.endError ??= err;
    const w = this.waiter;
    this.waiter = null;
    w?.resolve();
  }

  /** Resolves with the next `n` bytes (a view into a received chunk when it holds them all). */
  async read(n: number): Promise<Buffer> {
    if (n === 0) return Buffer.alloc(0);
    if (this.buffered < n) await this.fill(n);
    return this.take(n);
  }

  async u8(): Promise<number> {
    return (await this.read(1))[0]!;
  }

  async u16(): Promise<number> {
    return (await this.read(2)).readUInt16BE(0);
  }

  async u32(): Promise<number> {
    return (await this.read(4)).readUInt32BE(0);
  }

  async s32(): Promise<number> {
    return (await this.read(4)).readInt32BE(0);
  }

  /** Discards `n` bytes without keeping them. */
  async skip(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      const step = Math.min(left, 1 << 20);
      await this.read(step);
      left -= step;
    }
  }

  private fill(n: number): Promise<void> {
    if (this.endError) return Promise.reject(this.endError);
    return new Promise<void>((resolve, reject) => {
      this.waiter = {
        n,
        resolve: () => (this.buffered >= n ? resolve() : reject(this.endError ?? new Error('stream ended'))),
      };
    });
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length - this.head >= n) {
      const out = first.subarray(this.head, this.head + n);
      this.head += n;
      this.buffered -= n;
      if (this.head === first.length) {
        this.chunks.shift();
        this.head = 0;
      }
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let off = 0;
    while (off < n) {
      const c = this.chunks[0]!;
      const part = Math.min(c.length - this.head, n - off);
      c.copy(out, off, this.head, this.head + part);
      off += part;
      this.head += part;
      if (this.head === c.length) {
        this.chunks.shift();
        this.head = 0;
      }
    }
    this.buffered -= n;
    return out;
  }
}
