/**
 * Streaming redaction of secret values (issue 12, docs/secrets.md): every byte the guardian logs
 * (the PTY log, which also feeds the screen model, and each task stream) passes through one
 * {@link StreamRedactor}, which replaces each occurrence of a held value with `[secret:NAME]`
 * before it reaches the disk — also when the value arrives split across chunks (a program printing
 * one character at a time), with terminal escape sequences between its bytes (`\x1b[31m`, a
 * cursor move) or JSON-escaped (`\"`, `\\`, `\u00xx`).
 *
 * One rule decides both the whole-buffer redactor ({@link redactBuffer}) and the streaming one:
 * {@link scan}. Whether a value occurs at an offset depends only on the bytes from that offset on,
 * so a stream holds back exactly from the earliest offset the bytes so far cannot decide, and
 * `push`×N + `flush` always equals `redactBuffer` of the concatenation (a property test checks it).
 */

/** One value to replace, as bytes, and what replaces it. */
export interface RedactionPattern {
  bytes: Buffer;
  replacement: Buffer;
}

/** The patterns in force (immutable; the secret store swaps in a new set on every change). */
export interface PatternSet {
  readonly patterns: readonly RedactionPattern[];
}

export const NO_PATTERNS: PatternSet = { patterns: [] };

/**
 * A value started at the end of the stream (or before a shell marker) with at least this many of
 * its bytes printed is redacted too: a program that printed part of a secret does not reveal it.
 */
export const PARTIAL_REDACT_MIN_BYTES = 3;

/**
 * An escape sequence (ECMA-48: `ESC [` parameters, intermediates, final byte; or `ESC`
 * intermediates, final byte) is skipped between a value's bytes when it ends within this many
 * bytes of its `ESC`; a longer one ends there (so a stream never holds back more for it).
 */
const MAX_ESCAPE_BYTES = 64;

/** A value's bytes may be separated by at most this many bytes of escape sequences in all. */
const MAX_SKIPPED_ESCAPE_BYTES = 1024;

const ESC = 0x1b;
const EMPTY = Buffer.alloc(0);

/** The replacement text of a secret. */
export function secretMarker(name: string): string {
  return `[secret:${name}]`;
}

/**
 * Where the escape sequence starting at `d[s]` (an `ESC`) ends (exclusive), or -1 when the data
 * ends before it does (and before {@link MAX_ESCAPE_BYTES}). Never looks past `s + MAX_ESCAPE_BYTES`,
 * so the answer depends on those bytes only. An `ESC` followed by nothing a sequence allows is a
 * sequence of one byte.
 */
function escapeEnd(d: Buffer, s: number): number {
  const limit = s + MAX_ESCAPE_BYTES;
  const ranOut = (i: number): number => (i >= limit ? limit : -1);
  let i = s + 1;
  if (i >= d.length) return ranOut(i);
  if (d[i] === 0x5b) {
    // CSI: parameter bytes 0x30–0x3F and intermediate bytes 0x20–0x2F, then a final byte 0x40–0x7E.
    for (i++; ; i++) {
      if (i >= d.length || i >= limit) return ranOut(i);
      const c = d[i]!;
      if (c >= 0x20 && c <= 0x3f) continue;
      return c >= 0x40 && c <= 0x7e ? i + 1 : i;
    }
  }
  // nF / Fp / Fe / Fs: intermediates 0x20–0x2F, then a final byte 0x30–0x7E (ESC ], ESC \, ESC ( B…).
  for (; ; i++) {
    if (i >= d.length || i >= limit) return ranOut(i);
    const c = d[i]!;
    if (c >= 0x20 && c <= 0x2f) continue;
    if (c >= 0x30 && c <= 0x7e) return i + 1;
    return i === s + 1 ? s + 1 : i;
  }
}

/** Removes escape sequences (as {@link escapeEnd} reads them) from `d`; an unfinished one at the end too. */
export function stripEscapes(d: Buffer): Buffer {
  if (d.indexOf(ESC) < 0) return d;
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const e = d.indexOf(ESC, at);
    if (e < 0) break;
    if (e > at) out.push(d.subarray(at, e));
    const end = escapeEnd(d, e);
    at = end < 0 ? d.length : end;
  }
  if (at < d.length) out.push(d.subarray(at));
  return Buffer.concat(out);
}

/** `s` as a JSON string body; `ascii` also escapes non-ASCII (`\uXXXX`, Python's default), `html` also `<>&'` (Go's). */
function jsonBody(s: string, o: { ascii: boolean; html: boolean; upper: boolean }): string {
  let body = JSON.stringify(s).slice(1, -1);
  const u = (c: string): string => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${o.upper ? hex.toUpperCase() : hex}`;
  };
  if (o.ascii) body = body.replace(/[^\x00-\x7f]/g, u);
  if (o.html) body = body.replace(/[<>&']/g, u);
  if (o.upper) body = body.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`);
  return body;
}

/**
 * Builds a pattern set from held values: each value, its terminal form (`\n` → `\r\n`, as a PTY
 * prints it) and its JSON-escaped forms (JSON.stringify's; with non-ASCII as `\uXXXX`; with `<>&'`
 * escaped; lower- and upper-case hex), each once, with escape sequences removed (they are skipped
 * when matching). Longer patterns first: at one offset the longest wins.
 */
export function patternSet(values: ReadonlyArray<{ name: string; value: Buffer }>): PatternSet {
  const patterns: RedactionPattern[] = [];
  for (const { name, value } of values) {
    if (value.length === 0) continue;
    const replacement = Buffer.from(secretMarker(name));
    const text = value.toString('utf8');
    const forms = new Set<string>();
    const add = (b: Buffer): void => {
      const stripped = stripEscapes(b);
      const key = stripped.toString('latin1');
      if (stripped.length === 0 || forms.has(key)) return;
      forms.add(key);
      patterns.push({ bytes: Buffer.from(stripped), replacement });
    };
    add(value);
    add(Buffer.from(value.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1'));
    for (const ascii of [false, true]) for (const html of [false, true]) for (const upper of [false, true]) add(Buffer.from(jsonBody(text, { ascii, html, upper })));
  }
  patterns.sort((a, b) => b.bytes.length - a.bytes.length);
  return { patterns };
}

const FAIL = -1;

/**
 * Tries pattern `p` at `d[r]`: its bytes in order, escape sequences allowed between them (not
 * before the first). Returns the end of the match (exclusive, > r), {@link FAIL}, or `-2 - k` when
 * the data ends after `k` of its bytes while it could still match (open).
 */
function attempt(d: Buffer, r: number, p: Buffer): number {
  let i = r;
  let k = 0;
  let skipped = 0;
  while (k < p.length) {
    if (i >= d.length) return -2 - k;
    const c = d[i]!;
    if (c === p[k]) {
      i++;
      k++;
      continue;
    }
    if (c !== ESC || k === 0) return FAIL;
    const end = escapeEnd(d, i);
    if (end < 0) return -2 - k;
    skipped += end - i;
    if (skipped > MAX_SKIPPED_ESCAPE_BYTES) return FAIL;
    i = end;
  }
  return i;
}

/**
 * The one redaction rule. Walks `d` offset by offset (only offsets where some pattern could start):
 * at the earliest offset where a pattern matches, the first pattern in order (longest) that matches
 * is replaced, and the walk goes on after it. When the data ends inside a possible match (open):
 * - not `final` (more bytes may come): everything from that offset on is held back (`hold`);
 * - `final`: an open match of at least {@link PARTIAL_REDACT_MIN_BYTES} pattern bytes is replaced
 *   (to the end of the data); a shorter one is ordinary output.
 * Returns the output pieces and where the held-back rest begins (`d.length` when nothing is held).
 */
function scan(d: Buffer, set: PatternSet, final: boolean): { out: Buffer[]; hold: number } {
  const out: Buffer[] = [];
  const pats = set.patterns;
  const n = d.length;
  const hasEsc = d.indexOf(ESC) >= 0;
  // The next offset at or after `from` where pattern `p` could match or be open. Without escape
  // sequences a match is an exact occurrence and an open match starts in the last bytes.
  const candidate = (p: Buffer, from: number): number => {
    if (hasEsc) return d.indexOf(p[0]!, from);
    const exact = d.indexOf(p, from);
    const tailFrom = Math.max(from, n - p.length + 1);
    const open = tailFrom < n ? d.indexOf(p[0]!, tailFrom) : -1;
    if (exact < 0) return open;
    return open < 0 ? exact : Math.min(exact, open);
  };
  const next = pats.map((p) => candidate(p.bytes, 0));
  let emitted = 0;
  let hold = n;
  walk: for (;;) {
    let r = -1;
    for (const c of next) if (c >= 0 && (r < 0 || c < r)) r = c;
    if (r < 0) break;
    for (let i = 0; i < pats.length; i++) {
      if (next[i] !== r) continue;
      const p = pats[i]!;
      let end = attempt(d, r, p.bytes);
      if (end <= -2) {
        if (!final) {
          hold = r;
          break walk;
        }
        end = -2 - end >= PARTIAL_REDACT_MIN_BYTES ? n : FAIL;
      }
      if (end === FAIL) continue;
      if (r > emitted) out.push(d.subarray(emitted, r));
      out.push(p.replacement);
      emitted = end;
      for (let j = 0; j < pats.length; j++) next[j] = next[j]! >= 0 && next[j]! < end ? candidate(pats[j]!.bytes, end) : next[j]!;
      continue walk;
    }
    for (let i = 0; i < pats.length; i++) if (next[i] === r) next[i] = candidate(pats[i]!.bytes, r + 1);
  }
  if (hold > emitted) out.push(d.subarray(emitted, hold));
  return { out, hold: Math.max(hold, emitted) };
}

function join(out: Buffer[]): Buffer {
  if (out.length === 1) return out[0]!;
  return out.length === 0 ? EMPTY : Buffer.concat(out);
}

/**
 * Redacts a complete buffer in one go (no stream state): every occurrence of every pattern, and a
 * value's start at the very end as a stream's `flush` would ({@link scan}, `final`).
 */
export function redactBuffer(data: Buffer, set: PatternSet): Buffer {
  if (set.patterns.length === 0 || data.length === 0) return data;
  const { out } = scan(data, set, true);
  return out.length === 1 && out[0] === data ? data : join(out);
}

/**
 * One output stream's redactor. `push` returns the bytes that are safe to log now (possibly fewer
 * than were pushed); `flush` returns what is held back when the stream ends or reaches a boundary
 * a value cannot span (a shell-integration marker). With no secrets held it copies nothing.
 * `push`… + `flush` equals {@link redactBuffer} of everything pushed (one rule: {@link scan}).
 */
export class StreamRedactor {
  private held: Buffer = EMPTY;

  constructor(private readonly current: () => PatternSet) {}

  /** Bytes held back right now (a possible start of a value). */
  get pending(): number {
    return this.held.length;
  }

  push(chunk: Buffer): Buffer {
    const set = this.current();
    if (set.patterns.length === 0) {
      if (this.held.length === 0) return chunk;
      const all = Buffer.concat([this.held, chunk]);
      this.held = EMPTY;
      return all;
    }
    const data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const { out, hold } = scan(data, set, false);
    this.held = hold < data.length ? Buffer.from(data.subarray(hold)) : EMPTY;
    return join(out);
  }

  /**
   * Releases the held-back tail, redacted by the same rule as the end of a whole buffer: a started
   * value with at least {@link PARTIAL_REDACT_MIN_BYTES} of its bytes printed is shown as its marker.
   */
  flush(): Buffer {
    const held = this.held;
    if (held.length === 0) return EMPTY;
    this.held = EMPTY;
    const set = this.current();
    if (set.patterns.length === 0) return held;
    return join(scan(held, set, true).out);
  }
}
