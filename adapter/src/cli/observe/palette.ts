/**
 * Colours of `holdfast observe` text (issue 11): only when stdout is a terminal, never when
 * `NO_COLOR` is set to anything non-empty (no-color.org), 24-bit when `COLORTERM` says
 * `truecolor`/`24bit`, else the 16 basic ANSI colours. Piped output has no escape codes.
 */
export interface Palette {
  ok: (s: string) => string;
  fail: (s: string) => string;
  warn: (s: string) => string;
  info: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
  added: (s: string) => string;
  removed: (s: string) => string;
}

/** Which colours a stream gets. */
export type ColourMode = 'none' | 'basic' | 'truecolor';

/** Decides the colour mode from the stream and the environment. */
export function colourMode(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): ColourMode {
  if (!isTTY) return 'none';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 'none';
  const ct = (env.COLORTERM ?? '').toLowerCase();
  return ct === 'truecolor' || ct === '24bit' ? 'truecolor' : 'basic';
}

const sgr = (open: string, close: string) => (s: string): string => `\x1b[${open}m${s}\x1b[${close}m`;
const rgb = (r: number, g: number, b: number): string => `38;2;${r};${g};${b}`;
const plain = (s: string): string => s;

/** The palette of a colour mode. */
export function palette(mode: ColourMode): Palette {
  if (mode === 'none') return { ok: plain, fail: plain, warn: plain, info: plain, dim: plain, bold: plain, added: plain, removed: plain };
  const fg = mode === 'truecolor'
    ? { green: rgb(80, 200, 120), red: rgb(240, 90, 90), yellow: rgb(230, 190, 80), blue: rgb(110, 160, 240) }
    : { green: '32', red: '31', yellow: '33', blue: '34' };
  return {
    ok: sgr(fg.green, '39'),
    fail: sgr(fg.red, '39'),
    warn: sgr(fg.yellow, '39'),
    info: sgr(fg.blue, '39'),
    dim: sgr('2', '22'),
    bold: sgr('1', '22'),
    added: sgr(fg.green, '39'),
    removed: sgr(fg.red, '39'),
  };
}
