import type { Framebuffer } from '../framebuffer.js';

/**
 * ZRLE rectangle decoding (RFC 6143 §7.7.6) into the framebuffer, for the pixel format the client
 * sets (32 bpp, depth 24, true colour, R/G/B shifts 0/8/16): a CPIXEL is 3 bytes R G B.
 *
 * `data` is the rectangle's zlib output (the zlib stream itself lives across the connection, see
 * rfb-client.ts). Tiles of 64×64, left to right, top to bottom; sub-encodings: 0 raw, 1 solid,
 * 2–16 packed palette, 128 plain RLE, 130–255 palette RLE (129 and 17–127 are invalid).
 * @throws Error on a malformed or truncated stream (the connection is then closed).
 */
export function decodeZrle(data: Buffer, rx: number, ry: number, rw: number, rh: number, fb: Framebuffer): void {
  const out = fb.data;
  const stride = fb.width * 4;
  let p = 0;
  const need = (n: number): void => {
    if (p + n > data.length) throw new Error('ZRLE data ended inside a tile');
  };
  const palette = new Uint8Array(128 * 3);
  for (let ty = ry; ty < ry + rh; ty += 64) {
    const th = Math.min(64, ry + rh - ty);
    for (let tx = rx; tx < rx + rw; tx += 64) {
      const tw = Math.min(64, rx + rw - tx);
      need(1);
      const sub = data[p++]!;
      if (sub === 0) {
        need(tw * th * 3);
        for (let y = 0; y < th; y++) {
          let o = (ty + y) * stride + tx * 4;
          for (let x = 0; x < tw; x++, o += 4, p += 3) {
            out[o] = data[p]!;
            out[o + 1] = data[p + 1]!;
            out[o + 2] = data[p + 2]!;
            out[o + 3] = 255;
          }
        }
      } else if (sub === 1) {
        need(3);
        fb.fill(tx, ty, tw, th, data[p]!, data[p + 1]!, data[p + 2]!);
        p += 3;
      } else if (sub >= 2 && sub <= 16) {
        need(sub * 3);
        for (let i = 0; i < sub * 3; i++) palette[i] = data[p + i]!;
        p += sub * 3;
        const bits = sub === 2 ? 1 : sub <= 4 ? 2 : 4;
        const rowBytes = Math.ceil((tw * bits) / 8);
        need(rowBytes * th);
        const mask = (1 << bits) - 1;
        for (let y = 0; y < th; y++) {
          let o = (ty + y) * stride + tx * 4;
          const rowStart = p + y * rowBytes;
          for (let x = 0; x < tw; x++, o += 4) {
            const bit = x * bits;
            const idx = (data[rowStart + (bit >> 3)]! >> (8 - bits - (bit & 7))) & mask;
            out[o] = palette[idx * 3]!;
            out[o + 1] = palette[idx * 3 + 1]!;
            out[o + 2] = palette[idx * 3 + 2]!;
            out[o + 3] = 255;
          }
        }
        p += rowBytes * th;
      } else if (sub === 128 || sub >= 130) {
        const paletteSize = sub === 128 ? 0 : sub - 128;
        need(paletteSize * 3);
        for (let i = 0; i < paletteSize * 3; i++) palette[i] = data[p + i]!;
        p += paletteSize * 3;
        let x = 0;
        let y = 0;
        const total = tw * th;
        let done = 0;
        while (done < total) {
          let r: number;
          let g: number;
          let b: number;
          let run = 1;
          if (paletteSize === 0) {
            need(3);
            r = data[p]!;
            g = data[p + 1]!;
            b = data[p + 2]!;
            p += 3;
            run = readRunLength();
          } else {
            need(1);
            const idx = data[p++]!;
            const c = (idx & 127) * 3;
            r = palette[c]!;
            g = palette[c + 1]!;
            b = palette[c + 2]!;
            if (idx & 128) run = readRunLength();
          }
          if (done + run > total) throw new Error('ZRLE run overflows its tile');
          for (let i = 0; i < run; i++) {
            const o = (ty + y) * stride + (tx + x) * 4;
            out[o] = r;
            out[o + 1] = g;
            out[o + 2] = b;
            out[o + 3] = 255;
            if (++x === tw) {
              x = 0;
              y++;
            }
          }
          done += run;
        }
      } else {
        throw new Error(`invalid ZRLE sub-encoding ${sub}`);
      }
    }
  }
  if (p !== data.length) throw new Error(`ZRLE rectangle left ${data.length - p} bytes undecoded`);

  function readRunLength(): number {
    let len = 1;
    for (;;) {
      need(1);
      const b = data[p++]!;
      len += b;
      if (b !== 255) return len;
    }
  }
}
