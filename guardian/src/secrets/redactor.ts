/**
 * Streaming redaction of secret values (issue 12, docs/secrets.md): every byte the guardian logs
 * (the PTY log, which also feeds the screen model, and each task stream) passes through one
 * {@link StreamRedactor}, which replaces each occurrence of a held value with `[secret:NAME]`
 * before it reaches the disk — also when the value arrives split across chunks (a program printing
 * one character at a time): a chunk's tail that could be the start of a value is held back until
 * the next bytes decide.
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

/** A held-back tail at least this long is redacted when the stream ends or pauses at a marker. */
export const PARTIAL_REDACT_MIN_BYTES = 3;

const EMPTY = Buffer.alloc(0);

/** The replacement text of a secret. */
export function secretMarker(name: string): string {
  return `[secret:${name}]`;
}

/**
 * Builds a pattern set from held values: each value, and its terminal form (`\n` → `\r\n`, as a
 * PTY prints it) when that differs. Longer values first, so a value containing another wins.
 */
export function patternSet(values: ReadonlyArray<{ name: string; value: Buffer }>): PatternSet {
  const patterns: RedactionPattern[] = [];
  for (const { name, value } of values) {
    if (value.length === 0) continue;
    const replacement = Buffer.from(secretMarker(name));
    patterns.push({ bytes: value, replacement });
    const crlf = Buffer.from(value.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
    if (!crlf.equals(value)) patterns.push({ bytes: crlf, replacement });
  }
  patterns.sort((a, b) => b.bytes.length - a.bytes.length);
  return { patterns };
}

/**
 * Replaces every complete occurrence in `data[from..]`; returns the output pieces and where the
 * unmatched rest begins. The earliest match wins; among matches at one offset, the longest.
 */
function replaceComplete(data: Buffer, set: PatternSet): { out: Buffer[]; rest: number } {
  const out: Buffer[] = [];
  let pos = 0;
  for (;;) {
    let best = -1;
    let pick: RedactionPattern | null = null;
    for (const p of set.patterns) {
      const i = data.indexOf(p.bytes, pos);
      if (i >= 0 && (best < 0 || i < best)) {
        best = i;
        pick = p;
      }
    }
    if (pick === null) break;
    if (best > pos) out.push(data.subarray(pos, best));
    out.push(pick.replacement);
    pos = best + pick.bytes.length;
  }
  return { out, rest: pos };
}

/** Length of the longest tail of `data[from..]` that is a proper prefix of some pattern (0 if none). */
function heldTail(data: Buffer, from: number, set: PatternSet): { length: number; pattern: RedactionPattern | null } {
  let best = 0;
  let which: RedactionPattern | null = null;
  const avail = data.length - from;
  for (const p of set.patterns) {
    const first = p.bytes[0]!;
    for (let k = Math.min(p.bytes.length - 1, avail); k > best; k--) {
      const at = data.length - k;
      if (data[at] !== first) continue;
      if (data.compare(p.bytes, 0, k, at, data.length) === 0) {
        best = k;
        which = p;
        break;
      }
    }
  }
  return { length: best, pattern: which };
}

/** Redacts a complete buffer in one go (no stream state): every occurrence of every pattern. */
export function redactBuffer(data: Buffer, set: PatternSet): Buffer {
  if (set.patterns.length === 0 || data.length === 0) return data;
  const { out, rest } = replaceComplete(data, set);
  if (out.length === 0) return data;
  if (rest < data.length) out.push(data.subarray(rest));
  return Buffer.concat(out);
}

/**
 * One output stream's redactor. `push` returns the bytes that are safe to log now (possibly fewer
 * than were pushed); `flush` returns what is held back when the stream ends or reaches a boundary
 * a value cannot span (a shell-integration marker). With no secrets held it copies nothing.
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
    const { out, rest } = replaceComplete(data, set);
    const tail = heldTail(data, rest, set).length;
    const cut = data.length - tail;
    if (cut > rest) out.push(data.subarray(rest, cut));
    this.held = tail > 0 ? Buffer.from(data.subarray(cut)) : EMPTY;
    if (out.length === 1) return out[0]!;
    return out.length === 0 ? EMPTY : Buffer.concat(out);
  }

  /**
   * Releases the held-back tail. A tail of at least {@link PARTIAL_REDACT_MIN_BYTES} bytes that is
   * the start of a value is shown as that value's marker (a program that printed part of a secret
   * does not reveal that part); a shorter one is ordinary output.
   */
  flush(): Buffer {
    const held = this.held;
    if (held.length === 0) return EMPTY;
    this.held = EMPTY;
    if (held.length < PARTIAL_REDACT_MIN_BYTES) return held;
    const { length, pattern } = heldTail(held, 0, this.current());
    if (pattern === null || length !== held.length) return held;
    return pattern.replacement;
  }
}
