/**
 * Statistics for `npm run bench`: medians and percentiles of samples (ms or any unit), and the
 * printed table. Benches print; they never pass or fail on time (DESIGN §8).
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  const idx = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[idx]!;
}

export const median = (s: readonly number[]): number => percentile(s, 50);

/** Times `fn` `n` times after `warmup` runs; returns samples in ms. */
export async function sample(n: number, fn: () => Promise<unknown>, warmup = Math.min(20, Math.ceil(n / 10))): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export interface Row {
  suite: string;
  measure: string;
  value: string;
  baseline: string;
  ratio: string;
  note?: string;
}

const rows: Row[] = [];

/** Records a row and prints it at once (long benches show progress). */
export function report(r: Row): void {
  rows.push(r);
  process.stdout.write(`  ${r.measure.padEnd(48)} ${r.value.padEnd(26)} ${r.baseline.padEnd(34)} ${r.ratio}${r.note ? `  (${r.note})` : ''}\n`);
}

export function allRows(): readonly Row[] {
  return rows;
}

export const fmtMs = (v: number): string => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)) + ' ms';
export const ratio = (a: number, b: number): string => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : 'n/a');
