/**
 * The daemon's log: one JSON object per line on stderr, which the starter redirects to
 * `logs/daemon.log` (0600). Never arguments, file contents or tokens (DESIGN §6.2 spirit).
 */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function write(level: string, msg: string, fields?: Record<string, unknown>): void {
  const line = JSON.stringify({ t: new Date().toISOString(), level, pid: process.pid, msg, ...fields });
  try {
    process.stderr.write(line + '\n');
  } catch {
    // stderr gone: nothing to do
  }
}

export const log: Logger = {
  info: (m, f) => write('info', m, f),
  warn: (m, f) => write('warn', m, f),
  error: (m, f) => write('error', m, f),
};
