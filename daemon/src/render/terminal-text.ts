/**
 * Renders terminal output bytes as the text given to the model (DESIGN §5): ANSI escape
 * sequences (CSI, OSC, DCS, two-byte ESC) removed — which also removes bracketed-paste markers
 * and any shell-integration OSC — carriage returns and column moves (`ESC[nG`, `ESC[nC`,
 * `ESC[nD`) applied as overwrites within the line,
 * backspaces applied, `ESC[K` honoured, and CRLF turned into LF. Invalid UTF-8 at a cut edge is
 * dropped.
 */
export function renderTerminalText(bytes: Uint8Array): string {
  let s = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (s.startsWith('\uFFFD')) s = s.replace(/^\uFFFD+/, '');
  const out: string[] = [];
  let line: string[] = [];
  let col = 0;
  const put = (ch: string): void => {
    if (col < line.length) line[col] = ch;
    else {
      while (line.length < col) line.push(' ');
      line.push(ch);
    }
    col++;
  };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const code = ch.charCodeAt(0);
    if (ch === '\x1b') {
      const next = s[i + 1];
      if (next === '[') {
        // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E
        let j = i + 2;
        while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x3f) j++;
        const final = s[j];
        const params = s.slice(i + 2, j);
        if (final === 'K') {
          if (params === '' || params === '0') line.length = Math.min(line.length, col);
          else if (params === '2') {
            line = [];
          }
        } else if (final === 'G' || final === 'C' || final === 'D') {
          // Cursor to column n (CHA), forward n, back n: spinners redraw with ESC[1G (npm, cargo).
          const n = /^\d+$/.test(params) ? Number(params) : 1;
          col = final === 'G' ? Math.max(0, n - 1) : final === 'C' ? col + n : Math.max(0, col - n);
        }
        i = j;
        continue;
      }
      if (next === ']' || next === 'P' || next === '_' || next === '^') {
        // OSC/DCS/APC/PM: until BEL or ST (ESC \)
        let j = i + 2;
        while (j < s.length && s[j] !== '\x07' && !(s[j] === '\x1b' && s[j + 1] === '\\')) j++;
        i = s[j] === '\x07' ? j : j + 1;
        continue;
      }
      if (next === '(' || next === ')' || next === '*' || next === '+' || next === '#') {
        i += 2;
        continue;
      }
      i += 1;
      continue;
    }
    if (ch === '\n') {
      out.push(line.join('').replace(/\s+$/, ''));
      line = [];
      col = 0;
      continue;
    }
    if (ch === '\r') {
      col = 0;
      continue;
    }
    if (ch === '\b') {
      if (col > 0) col--;
      continue;
    }
    if (ch === '\t') {
      const stop = (Math.floor(col / 8) + 1) * 8;
      while (col < stop) put(' ');
      continue;
    }
    if (code < 0x20 || code === 0x7f) continue;
    put(ch);
  }
  if (line.length > 0) out.push(line.join('').replace(/\s+$/, ''));
  return out.join('\n');
}
