import { connect } from 'node:net';
import { mkdirSync, rmSync, unlinkSync } from 'node:fs';
import lockfile from 'proper-lockfile';
import type { HomeLayout } from '@holdfast/shared/paths';
import { HoldfastError } from '@holdfast/shared/errors';
import { isProcessAlive, processStartTime, readJson, writeJsonAtomic } from '@holdfast/shared/protocol';

/** Who holds the daemon lock (`run/daemon.pid`). */
interface PidRecord {
  pid: number;
  startTime: string | null;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Singleton start (DESIGN §4.5, issue 2): the daemon holds `run/daemon.lock` (proper-lockfile,
 * refreshed while it runs) and records its pid + start time. A lock whose holder is dead (pid
 * gone or reused) is broken at once instead of waiting for staleness, so a `kill -9`ed daemon
 * can be replaced immediately. `waitMs` > 0 keeps trying (a restart successor waits for its
 * predecessor to let go).
 * @throws HoldfastError `BAD_REQUEST` with `details.already_serving` when another live daemon holds it.
 * @returns a release function.
 */
export async function acquireDaemonLock(layout: HomeLayout, waitMs: number, onCompromised: (err: Error) => void): Promise<() => Promise<void>> {
  mkdirSync(layout.runDir, { recursive: true, mode: 0o700 });
  const until = Date.now() + waitMs;
  let missingSince: number | null = null;
  for (;;) {
    try {
      const release = await lockfile.lock(layout.daemonLock, {
        realpath: false,
        lockfilePath: layout.daemonLock,
        stale: 10_000,
        update: 2_000,
        onCompromised,
      });
      const me: PidRecord = { pid: process.pid, startTime: processStartTime(process.pid) };
      writeJsonAtomic(layout.daemonPidFile, me);
      return async () => {
        await release().catch(() => undefined);
        // A successor may already have written its own pid file: only remove ours.
        const now = readJson<PidRecord>(layout.daemonPidFile);
        if (now && now.pid === me.pid) rmSync(layout.daemonPidFile, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      const holder = readJson<PidRecord>(layout.daemonPidFile);
      if (holder && isProcessAlive(holder.pid, holder.startTime)) {
        missingSince = null;
        if (Date.now() >= until) {
          throw new HoldfastError('BAD_REQUEST', `another holdfastd (pid ${holder.pid}) already serves ${layout.home}`, { details: { pid: holder.pid, already_serving: true } });
        }
        await delay(50);
        continue;
      }
      if (holder) {
        // The holder died (crash, kill -9) or its pid was reused: break the lock at once.
        rmSync(layout.daemonLock, { recursive: true, force: true });
        continue;
      }
      // Locked but no pid file: a holder between lock and pid write, or one that crashed there.
      missingSince ??= Date.now();
      if (Date.now() - missingSince > 1000) {
        rmSync(layout.daemonLock, { recursive: true, force: true });
        missingSince = null;
        continue;
      }
      await delay(50);
    }
  }
}

/**
 * Removes a stale control socket: if something answers on it, another daemon is serving
 * (refuse); if the connection is refused, the file is a leftover and is unlinked.
 */
export async function clearStaleSocket(path: string): Promise<void> {
  const alive = await new Promise<boolean>((resolve) => {
    const s = connect({ path });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  if (alive) throw new HoldfastError('BAD_REQUEST', `a daemon already answers on ${path}`, { details: { already_serving: true } });
  try {
    unlinkSync(path);
  } catch {
    // not there
  }
}
