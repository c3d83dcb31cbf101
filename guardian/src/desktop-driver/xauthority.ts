import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Xauthority files (the format of libXau): entries of family u16, then address, display number,
 * auth name and auth data, each a u16 length + bytes, all big-endian.
 */
const FAMILY_LOCAL = 256;
const FAMILY_WILD = 0xffff;
const COOKIE = 'MIT-MAGIC-COOKIE-1';

function field(b: Buffer): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
}

/**
 * Writes (0600) an Xauthority file holding one fresh MIT-MAGIC-COOKIE-1 for any address and any
 * display number, so the X server started with `-auth file` accepts exactly the clients given
 * `XAUTHORITY=file` — a private display other local users cannot reach.
 */
export function writeWildcardCookie(path: string): void {
  const family = Buffer.alloc(2);
  family.writeUInt16BE(FAMILY_WILD);
  const entry = Buffer.concat([family, field(Buffer.alloc(0)), field(Buffer.alloc(0)), field(Buffer.from(COOKIE)), field(randomBytes(16))]);
  writeFileSync(path, entry, { mode: 0o600 });
}

/**
 * The MIT-MAGIC-COOKIE-1 of `display` (its number, e.g. `0` for `:0`) for a local connection in
 * the Xauthority file `path`, or null when the file is missing or has no matching entry.
 */
export function readCookie(path: string, display: string, hostname: string): { name: string; data: Buffer } | null {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return null;
  }
  let p = 0;
  const take = (): Buffer | null => {
    if (p + 2 > buf.length) return null;
    const len = buf.readUInt16BE(p);
    if (p + 2 + len > buf.length) return null;
    const out = buf.subarray(p + 2, p + 2 + len);
    p += 2 + len;
    return out;
  };
  while (p + 2 <= buf.length) {
    const family = buf.readUInt16BE(p);
    p += 2;
    const address = take();
    const number = take();
    const name = take();
    const data = take();
    if (!address || !number || !name || !data) return null;
    const addressOk = family === FAMILY_WILD || (family === FAMILY_LOCAL && address.toString('latin1') === hostname);
    const numberOk = number.length === 0 || number.toString('latin1') === display;
    if (addressOk && numberOk && name.toString('latin1') === COOKIE) return { name: COOKIE, data: Buffer.from(data) };
  }
  return null;
}
