import { read } from 'node:fs';

/**
 * Random access to a file's bytes: a whole file in memory, or positional reads on a descriptor
 * (constant memory on files of any size: nothing is read that a window does not need).
 */
export interface ByteSource {
  readonly size: number;
  /** Bytes `[pos, pos+len)` clipped to the end of the file. */
  read(pos: number, len: number): Promise<Buffer>;
}

/** A source over bytes already in memory. */
export function memorySource(bytes: Buffer): ByteSource {
  return {
    size: bytes.length,
    read: (pos, len) => Promise.resolve(bytes.subarray(Math.max(0, pos), Math.min(bytes.length, pos + len))),
  };
}

/** A source over an open descriptor (positional `pread`, off the event loop). */
export function fdSource(fd: number, size: number): ByteSource {
  return {
    size,
    read(pos, len) {
      const start = Math.max(0, pos);
      const n = Math.max(0, Math.min(size, pos + len) - start);
      if (n === 0) return Promise.resolve(Buffer.alloc(0));
      const buf = Buffer.allocUnsafe(n);
      return new Promise((resolve, reject) => {
        let got = 0;
        const step = (): void => {
          read(fd, buf, got, n - got, start + got, (err, bytes) => {
            if (err) return reject(err);
            got += bytes;
            if (bytes === 0 || got === n) return resolve(buf.subarray(0, got));
            step();
          });
        };
        step();
      });
    },
  };
}
