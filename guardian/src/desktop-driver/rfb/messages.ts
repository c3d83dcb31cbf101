/**
 * Client-to-server RFB messages (RFC 6143 §7.5) and the encoding numbers holdfast speaks (§7.7).
 */

export const Encodings = {
  RAW: 0,
  COPY_RECT: 1,
  ZRLE: 16,
  /** Pseudo-encodings: the server may change the framebuffer size (§7.8.2) / screen layout (ExtendedDesktopSize). */
  DESKTOP_SIZE: -223,
  LAST_RECT: -224,
  EXTENDED_DESKTOP_SIZE: -308,
} as const;

/** Encodings offered on a remote (possibly slow) link: compressed first. */
export const REMOTE_ENCODINGS: readonly number[] = [Encodings.ZRLE, Encodings.COPY_RECT, Encodings.RAW, Encodings.DESKTOP_SIZE, Encodings.EXTENDED_DESKTOP_SIZE, Encodings.LAST_RECT];
/**
 * Encodings offered on the private display's Unix socket: ZRLE first as well. Issue 15 offered Raw
 * first here (copying looked cheaper than compressing); issue 16 measured a whole-screen change
 * reaching the framebuffer in ~13 ms with ZRLE against ~36 ms with Raw (4 MB per 1280×800 update
 * through the socket), with less driver CPU per frame (docs/desktop.md, "Measured").
 */
export const LOCAL_ENCODINGS: readonly number[] = [Encodings.ZRLE, Encodings.COPY_RECT, Encodings.RAW, Encodings.DESKTOP_SIZE, Encodings.EXTENDED_DESKTOP_SIZE, Encodings.LAST_RECT];

/** Pointer button mask bits (§7.5.5): 1 left, 2 middle, 4 right, 8/16 wheel up/down, 32/64 wheel left/right. */
export const ButtonMask = { left: 1, middle: 2, right: 4, wheelUp: 8, wheelDown: 16, wheelLeft: 32, wheelRight: 64 } as const;

/** SetPixelFormat: 32 bpp, depth 24, little-endian true colour, R/G/B shifts 0/8/16 (bytes R G B X). */
export function setPixelFormat(): Buffer {
  const b = Buffer.alloc(20);
  b[0] = 0;
  b[4] = 32; // bits per pixel
  b[5] = 24; // depth
  b[6] = 0; // big-endian flag
  b[7] = 1; // true colour
  b.writeUInt16BE(255, 8);
  b.writeUInt16BE(255, 10);
  b.writeUInt16BE(255, 12);
  b[14] = 0;
  b[15] = 8;
  b[16] = 16;
  return b;
}

export function setEncodings(encodings: readonly number[]): Buffer {
  const b = Buffer.alloc(4 + 4 * encodings.length);
  b[0] = 2;
  b.writeUInt16BE(encodings.length, 2);
  encodings.forEach((e, i) => b.writeInt32BE(e, 4 + 4 * i));
  return b;
}

export function updateRequest(incremental: boolean, x: number, y: number, w: number, h: number): Buffer {
  const b = Buffer.alloc(10);
  b[0] = 3;
  b[1] = incremental ? 1 : 0;
  b.writeUInt16BE(x, 2);
  b.writeUInt16BE(y, 4);
  b.writeUInt16BE(w, 6);
  b.writeUInt16BE(h, 8);
  return b;
}

export function keyEvent(keysym: number, down: boolean): Buffer {
  const b = Buffer.alloc(8);
  b[0] = 4;
  b[1] = down ? 1 : 0;
  b.writeUInt32BE(keysym >>> 0, 4);
  return b;
}

export function pointerEvent(x: number, y: number, mask: number): Buffer {
  const b = Buffer.alloc(6);
  b[0] = 5;
  b[1] = mask;
  b.writeUInt16BE(x, 2);
  b.writeUInt16BE(y, 4);
  return b;
}
