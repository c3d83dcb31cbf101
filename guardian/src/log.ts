/**
 * The guardian's own log: one line per event on stderr, which the daemon redirects to
 * `sessions/<gid>/guardian.log` (DESIGN §1). Writing never throws: a closed or broken stderr
 * (EPIPE) must not take the session down.
 */
let broken = false;

process.stderr.on('error', () => {
  broken = true;
});

/** Writes `msg` (and an optional error) as one timestamped line to stderr, best effort. */
export function log(msg: string, err?: unknown): void {
  if (broken) return;
  let line = `${new Date().toISOString()} guardian[${process.pid}] ${msg}`;
  if (err !== undefined) line += `: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  try {
    process.stderr.write(line + '\n');
  } catch {
    broken = true;
  }
}
