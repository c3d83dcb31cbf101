/**
 * The guardian's own log: one line per event on stderr, which the daemon redirects to
 * `sessions/<gid>/guardian.log` (DESIGN §1); the desktop driver uses it too (its stderr goes to
 * `sessions/<gid>/desktop/driver.log`). Writing never throws: a closed or broken stderr (EPIPE)
 * must not take the session down.
 */
let broken = false;
let name = 'guardian';

/** Names the process in every line (`guardian`, `desktop-driver`). */
export function setLogName(n: string): void {
  name = n;
}

process.stderr.on('error', () => {
  broken = true;
});

/** Writes `msg` (and an optional error) as one timestamped line to stderr, best effort. */
export function log(msg: string, err?: unknown): void {
  if (broken) return;
  let line = `${new Date().toISOString()} ${name}[${process.pid}] ${msg}`;
  if (err !== undefined) line += `: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  try {
    process.stderr.write(line + '\n');
  } catch {
    broken = true;
  }
}
