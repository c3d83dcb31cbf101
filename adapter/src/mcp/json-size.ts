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
 * Close estimate of the UTF-8 size of `JSON.stringify(value)`, without serialising it: the legacy
 * era's event store measured every message it kept and the usage log every result, and a
 * `tools/list` answer (45 KB) or a 1 MB read was serialised again for that alone — the half of the
 * 2025-era `tools/list` rate the 2026 path did not pay, and 6 ms of a 1 MB read (issue 10).
 * Never above the exact size: escapes are not counted, keys and strings under 256 characters
 * count UTF-16 units (exact for ASCII), longer strings their UTF-8 bytes. Values registered with
 * {@link markImmutable} are measured once; a value with `toJSON` is serialised.
 */
export function jsonBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return (value.length < 256 ? value.length : Buffer.byteLength(value)) + 2;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (value === null || typeof value !== 'object') return value === null ? 4 : 0;
  const known = immutableSizes.get(value);
  if (known !== undefined) return known;
  if (depth >= 32 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return Buffer.byteLength(JSON.stringify(value) ?? '');
  if (Array.isArray(value)) {
    let n = 2 + Math.max(0, value.length - 1);
    for (const v of value) n += v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 4 : jsonBytes(v, depth + 1);
    return n;
  }
  let n = 1;
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, k)) continue;
    const v = obj[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    n += k.length + 4 + jsonBytes(v, depth + 1);
  }
  return n === 1 ? 2 : n;
}
