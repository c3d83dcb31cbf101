/**
 * What a client that gives the model only a result's text block (DESIGN §6.3; many MCP clients do)
 * can call next: the calls the text names, as `tool(key=JSON, …)` (daemon `callText`). Tests follow
 * them, adding the `remote_session_id` every call carries, to prove the text alone pages to the end.
 */

/** One call named in a text block. */
export interface TextCall {
  tool: string;
  args: Record<string, unknown>;
}

/** Length of the JSON value at `s[i…]` (a string, number, boolean, null, array or object). */
function jsonValueEnd(s: string, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < s.length; j++) {
    const ch = s[j]!;
    if (inString) {
      if (ch === '\\') j++;
      else if (ch === '"') {
        inString = false;
        if (depth === 0) return j + 1;
      }
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') depth++;
    else if (ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) return j + 1;
    } else if (depth === 0 && (ch === ',' || ch === ')')) return j;
  }
  return s.length;
}

/**
 * Parses `tool(key=JSON, key=JSON)` starting at `s[start]` (the tool's name).
 * @throws Error when the text is not such a call.
 */
export function parseCallAt(s: string, start: number): TextCall {
  const open = s.indexOf('(', start);
  const tool = s.slice(start, open);
  if (!/^\w+$/.test(tool)) throw new Error(`no call at ${JSON.stringify(s.slice(start, start + 40))}`);
  const args: Record<string, unknown> = {};
  let i = open + 1;
  while (s[i] !== ')') {
    const eq = s.indexOf('=', i);
    const key = s.slice(i, eq);
    if (!/^\w+$/.test(key)) throw new Error(`bad argument name ${JSON.stringify(key)} in ${s.slice(start, start + 200)}`);
    const end = jsonValueEnd(s, eq + 1);
    args[key] = JSON.parse(s.slice(eq + 1, end)) as unknown;
    i = end;
    if (s.startsWith(', ', i)) i += 2;
    else if (s[i] !== ')') throw new Error(`unterminated call in ${s.slice(start, start + 200)}`);
  }
  return { tool, args };
}

/** The call a text block's last line names (`[more: tool(…)]`), or null on the last page. */
export function moreCall(text: string): TextCall | null {
  const at = text.lastIndexOf('\n[more: ');
  const line = at === -1 ? (text.startsWith('[more: ') ? text : '') : text.slice(at + 1);
  if (line === '' || line.includes('\n') || !line.endsWith(')]')) return null;
  return parseCallAt(line, '[more: '.length);
}

/** The call a text names right after `marker` (e.g. `page by page: `), or null when the marker is absent. */
export function callAfter(text: string, marker: string): TextCall | null {
  const at = text.indexOf(marker);
  return at === -1 ? null : parseCallAt(text, at + marker.length);
}
