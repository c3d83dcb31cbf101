/**
 * X keysyms for the desktop tools (issue 15 §6; X11 keysymdef.h, RFC 6143 §7.5.4).
 *
 * Key names (`key_press`, `hotkey`): `A`–`Z` (sent as the lowercase letter's keysym, as a
 * keyboard's key is; the server adds no Shift), `0`–`9`, `F1`–`F12`, `CTRL`, `ALT`, `SHIFT`,
 * `META` (the Super/Windows/Command key), `ENTER`, `ESC`, `TAB`, `BACKSPACE`, `DELETE`, `SPACE`,
 * `UP`, `DOWN`, `LEFT`, `RIGHT`, `HOME`, `END`, `PAGE_UP`, `PAGE_DOWN`, `INSERT`; case does not matter.
 *
 * Text (`type_text`): Latin-1 characters are their own keysym; every other Unicode character is
 * keysym 0x1000000 + its code point (the X convention servers map to a spare keycode); `\n` is
 * Return and `\t` Tab.
 */
const NAMED: Readonly<Record<string, number>> = {
  CTRL: 0xffe3,
  ALT: 0xffe9,
  SHIFT: 0xffe1,
  META: 0xffeb,
  ENTER: 0xff0d,
  ESC: 0xff1b,
  TAB: 0xff09,
  BACKSPACE: 0xff08,
  DELETE: 0xffff,
  INSERT: 0xff63,
  SPACE: 0x0020,
  HOME: 0xff50,
  LEFT: 0xff51,
  UP: 0xff52,
  RIGHT: 0xff53,
  DOWN: 0xff54,
  PAGE_UP: 0xff55,
  PAGE_DOWN: 0xff56,
  END: 0xff57,
};

/** Every accepted key name (for messages and docs). */
export const KEY_NAMES: readonly string[] = [
  ...Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i)),
  ...Array.from({ length: 10 }, (_, i) => String(i)),
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  ...Object.keys(NAMED),
];

/** Modifier keysyms (held while the other keys of a hotkey are pressed). */
export const MODIFIER_KEYSYMS: ReadonlySet<number> = new Set([NAMED.CTRL!, NAMED.ALT!, NAMED.SHIFT!, NAMED.META!]);

/** The keysym of a key name, or null when the name is not one of {@link KEY_NAMES}. */
export function keysymForName(name: string): number | null {
  const n = name.trim().toUpperCase();
  if (/^[A-Z]$/.test(n)) return n.toLowerCase().charCodeAt(0);
  if (/^[0-9]$/.test(n)) return n.charCodeAt(0);
  const f = /^F([1-9]|1[0-2])$/.exec(n);
  if (f) return 0xffbe + Number(f[1]) - 1;
  return NAMED[n] ?? null;
}

/** The keysym that types one Unicode code point. */
export function keysymForCodePoint(cp: number): number {
  if (cp === 0x0a || cp === 0x0d) return NAMED.ENTER!;
  if (cp === 0x09) return NAMED.TAB!;
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  return 0x1000000 + cp;
}

/** Keysyms for every character of `text` (code points, so astral characters stay whole). */
export function keysymsForText(text: string): number[] {
  const out: number[] = [];
  for (const ch of text.replace(/\r\n/g, '\n')) out.push(keysymForCodePoint(ch.codePointAt(0)!));
  return out;
}
