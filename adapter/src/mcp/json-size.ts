/** JSON sizes of values registered with {@link markImmutable} (computed once each). */
const immutableSizes = new WeakMap<object, number>();

/**
 * Registers a value that is never changed after this call (the cached `tools/list` entries of
 * the catalogue), so {@link jsonBytes} measures it once instead of on every answer that carries it.
 */
export function markImmutable(value: object): void {
  if (!immutableSizes.has(value)) immutableSizes.set(value, Buffer.byteLength(JSON.stringify(value)));
}

/**
 * UTF-8 size of `JSON.stringify(value)` without serialising it: the legacy era's event store
 * measured every message it kept and the usage log every result, and a `tools/list` answer
 * (45 KB) or a 1 MB read was serialised again for that alone — the half of the 2025-era
 * `tools/list` rate the 2026 path did not pay, and 6 ms of a 1 MB read (issue 10). Strings count
 * their UTF-8 bytes and quotes but not the backslashes of escaped characters (a close estimate,
 * never above the exact size); values registered with {@link markImmutable} are measured once.
 * Plain objects and arrays are walked; a value with `toJSON` is serialised.
 */
export function jsonBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return Buffer.byteLength(value) + 2;
  if (value === null || typeof value !== 'object') return JSON.stringify(value)?.length ?? 0;
  const known = immutableSizes.get(value);
  if (known !== undefined) return known;
  if (depth >= 32 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return Buffer.byteLength(JSON.stringify(value) ?? '');
  if (Array.isArray(value)) {
    let n = 2 + Math.max(0, value.length - 1);
    for (const v of value) n += v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 4 : jsonBytes(v, depth + 1);
    return n;
  }
  let n = 2;
  let first = true;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    n += (first ? 0 : 1) + JSON.stringify(k).length + 1 + jsonBytes(v, depth + 1);
    first = false;
  }
  return n;
}
