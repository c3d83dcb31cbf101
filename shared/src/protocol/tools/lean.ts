import * as z from 'zod';

/**
 * Schema parts whose limits are checked when arguments are parsed but not spelled out in
 * `tools/list` (issue 11): `maxLength`/`maxItems` on every field of every tool add up, and the
 * `full` catalogue must stay under 48 KB. Use them for generous safety limits a model never needs
 * to know about; limits that shape a correct call belong in the visible schema or the description.
 */

/** A string of at most `max` characters (and at least `min`), rendered as plain `{"type":"string"}`. */
export function leanString(max: number, min = 0) {
  return z.string().check(
    z.refine((s: string) => s.length >= min && s.length <= max, { message: min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters` }),
  );
}

/** An array of at most `max` items, rendered without `maxItems`. */
export function leanArray<T extends z.ZodType>(item: T, max: number) {
  return z.array(item).check(z.refine((a: unknown[]) => a.length <= max, { message: `at most ${max} items` }));
}

/** A whole number ≥ `min`, rendered as `{"type":"integer"}` without zod's safe-integer bounds. */
export function leanInt(min = 0) {
  return z.number().check(z.refine((n: number) => Number.isInteger(n) && n >= min, { message: `must be a whole number ≥ ${min}` })).meta({ type: 'integer' });
}
