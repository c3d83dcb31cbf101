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

/** p50 and p99 of samples in ms, printed side by side (`p50 1.02 ms p99 2.31 ms`). */
export function p50p99(samples: readonly number[]): string {
  return `p50 ${fmtMs(median(samples))} p99 ${fmtMs(percentile(samples, 99))}`;
}

/**
 * Requests per second of `workers` concurrent loops each awaiting `fn(worker)` until `ms` have
 * passed (a `warmupMs` run first, not counted). Latencies of every request are kept so a rate
 * row can print p50/p99 too. The shared helper of every throughput row (no copies in suites).
 */
export async function rate(workers: number, ms: number, fn: (worker: number) => Promise<unknown>, warmupMs = 0): Promise<{ perSecond: number; samples: number[] }> {
  const loop = async (until: number, out: number[] | null): Promise<number> => {
    let n = 0;
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        while (performance.now() < until) {
          const t0 = performance.now();
          await fn(w);
          out?.push(performance.now() - t0);
          n++;
        }
      }),
    );
    return n;
  };
  if (warmupMs > 0) await loop(performance.now() + warmupMs, null);
  const samples: number[] = [];
  const t0 = performance.now();
  const n = await loop(t0 + ms, samples);
  return { perSecond: n / ((performance.now() - t0) / 1000), samples };
}

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
