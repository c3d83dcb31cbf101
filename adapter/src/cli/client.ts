import { DaemonClient } from '../daemon-client.js';

/**
 * A daemon client for one CLI invocation. Commands that need a running daemon do not start one
 * (a down daemon is a one-line error); `workspace register` and `serve` may start it.
 */
export function cliClient(opts: { autoStart?: boolean; giveUpMs?: number } = {}): DaemonClient {
  return new DaemonClient({ role: 'cli', autoStart: opts.autoStart ?? false, giveUpMs: opts.giveUpMs ?? 1500 });
}

/** Runs `fn` with a client and closes it afterwards. */
export async function withClient<T>(fn: (c: DaemonClient) => Promise<T>, opts: { autoStart?: boolean; giveUpMs?: number } = {}): Promise<T> {
  const c = cliClient(opts);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

/** Prints JSON (for `--json`) on stdout. */
export function printJson(v: unknown): void {
  process.stdout.write(JSON.stringify(v, null, 2) + '\n');
}

/** Formats rows as a left-aligned table with a header. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [fmt(header), ...rows.map(fmt)].join('\n') + '\n';
}

/** Seconds as a short duration (`45s`, `12m`, `3h`, `2d`). */
export function shortDuration(s: number): string {
  if (s < 120) return `${Math.round(s)}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}
