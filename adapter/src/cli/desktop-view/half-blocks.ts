import { PanelLimits } from '@holdfast/shared/constants';

/** Colour depth a terminal renders: 8 colours, the xterm 256-colour palette, or 24-bit. */
export type ColourDepth = 8 | 256 | 24;

/**
 * The depth to draw with, from the terminal's abilities as Node reads them (`tty.WriteStream.
 * getColorDepth()`: `COLORTERM`, `TERM` and friends): 24 bits → 24-bit, 8 bits → 256 colours,
 * anything less → the 8 basic colours.
 */
export function depthFromBits(bits: number): ColourDepth {
  if (bits >= 24) return 24;
  if (bits >= 8) return 256;
  return 8;
}

/** A picture of whole cells: `cols` × `rows` cells, each two pixels high. */
export interface CellGrid {
  cols: number;
  rows: number;
}

/**
 * The largest cell grid that shows a `width`×`height` picture with its aspect ratio (issue 16 §5):
 * at most `maxCols`×`maxRows` cells (and never more than 160×60); `cellAspect` is a cell's width
 * divided by its height (0.2–2; about 0.5 in most terminal fonts). Each cell draws two pixels
 * stacked (a half block), so the picture is sampled at `cols`×`2·rows` pixels.
 */
export function fitGrid(width: number, height: number, maxCols: number, maxRows: number, cellAspect: number): CellGrid {
  const mc = Math.max(1, Math.min(PanelLimits.TERMINAL_MAX_COLS, Math.floor(maxCols)));
  const mr = Math.max(1, Math.min(PanelLimits.TERMINAL_MAX_ROWS, Math.floor(maxRows)));
  if (width <= 0 || height <= 0) return { cols: mc, rows: mr };
  let cols = mc;
  let rows = Math.round((cols * cellAspect * height) / width);
  if (rows > mr) {
    rows = mr;
    cols = Math.min(mc, Math.round((rows * width) / (cellAspect * height)));
  }
  return { cols: Math.max(1, cols), rows: Math.max(1, rows) };
}

const BASIC: readonly [number, number, number][] = [
  [0, 0, 0],
  [205, 0, 0],
  [0, 205, 0],
  [205, 205, 0],
  [0, 0, 238],
  [205, 0, 205],
  [0, 205, 205],
  [229, 229, 229],
];
const CUBE = [0, 95, 135, 175, 215, 255];

/** Nearest xterm 256-palette index (the 6×6×6 cube or the 24 greys). */
export function xterm256(r: number, g: number, b: number): number {
  const level = (v: number): number => (v < 48 ? 0 : v < 115 ? 1 : Math.min(5, Math.floor((v - 35) / 40)));
  const ri = level(r);
  const gi = level(g);
  const bi = level(b);
  const cube = 16 + 36 * ri + 6 * gi + bi;
  const cubeErr = (CUBE[ri]! - r) ** 2 + (CUBE[gi]! - g) ** 2 + (CUBE[bi]! - b) ** 2;
  const avg = (r + g + b) / 3;
  const grey = avg > 238 ? 23 : Math.max(0, Math.round((avg - 8) / 10));
  const gv = 8 + grey * 10;
  const greyErr = (gv - r) ** 2 + (gv - g) ** 2 + (gv - b) ** 2;
  return greyErr < cubeErr ? 232 + grey : cube;
}

/** Nearest of the 8 basic ANSI colours (0–7). */
export function basic8(r: number, g: number, b: number): number {
  let best = 0;
  let bestErr = Infinity;
  BASIC.forEach(([br, bg, bb], i) => {
    const e = (br - r) ** 2 + (bg - g) ** 2 + (bb - b) ** 2;
    if (e < bestErr) {
      bestErr = e;
      best = i;
    }
  });
  return best;
}

/** The SGR parameters that set the foreground (`fg`) or background colour. */
function sgr(depth: ColourDepth, fg: boolean, r: number, g: number, b: number): string {
  if (depth === 24) return `${fg ? 38 : 48};2;${r};${g};${b}`;
  if (depth === 256) return `${fg ? 38 : 48};5;${xterm256(r, g, b)}`;
  return String((fg ? 30 : 40) + basic8(r, g, b));
}

/**
 * Renders raw RGB pixels (`cols`×`2·rows`, 3 bytes each, row-major) as `rows` lines of ANSI
 * half-block cells: each cell is `▀` with the upper pixel as foreground and the lower as
 * background. Colour codes are emitted only where they change; each line ends with a reset.
 */
export function renderHalfBlocks(rgb: Uint8Array, grid: CellGrid, depth: ColourDepth): string[] {
  const width = grid.cols;
  const lines: string[] = [];
  for (let row = 0; row < grid.rows; row++) {
    let line = '';
    let lastFg = '';
    let lastBg = '';
    for (let x = 0; x < width; x++) {
      const top = (row * 2 * width + x) * 3;
      const bottom = ((row * 2 + 1) * width + x) * 3;
      const fg = sgr(depth, true, rgb[top]!, rgb[top + 1]!, rgb[top + 2]!);
      const bg = sgr(depth, false, rgb[bottom]!, rgb[bottom + 1]!, rgb[bottom + 2]!);
      const codes = [fg !== lastFg ? fg : null, bg !== lastBg ? bg : null].filter((c): c is string => c !== null);
      if (codes.length > 0) line += `\x1b[${codes.join(';')}m`;
      lastFg = fg;
      lastBg = bg;
      line += '▀';
    }
    lines.push(`${line}\x1b[0m`);
  }
  return lines;
}
