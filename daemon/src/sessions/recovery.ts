import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { guardianPaths, type HomeLayout } from '@holdfast/shared/paths';
import { isGuardianManifest, isSameProcess, LinkTimeouts, processUid, readJson, type ExitRecord, type GuardianManifest } from '@holdfast/shared/protocol';
import type { Logger } from '../log.js';
import type { EventsRepo } from '../store/events-repo.js';
import type { SessionsRepo } from '../store/sessions-repo.js';
import { GuardianLink } from './link.js';
import type { SessionManager } from './manager.js';
import { killWithEscalation } from './process-sweep.js';

export interface RecoveryReport {
  adopted: string[];
  exited: string[];
  lost: string[];
  orphansKilled: string[];
}

/**
 * Start-up reconciliation (DESIGN §4.5, containerd's LoadExistingShims): DB rows ⟷ manifests ⟷
 * live sockets. For every live row: pid alive AND start time matches → connect with a timeout →
 * hello → status → adopt; unreachable → exit.json → `exited`/`closed`, else `lost`. A manifest
 * without a live row (a crash between spawn and commit) is killed — only when its pid and start
 * time identify a live process of ours (issue 18); the file is removed either way.
 */
export async function recoverSessions(layout: HomeLayout, manager: SessionManager, sessions: SessionsRepo, events: EventsRepo, log: Logger): Promise<RecoveryReport> {
  const report: RecoveryReport = { adopted: [], exited: [], lost: [], orphansKilled: [] };
  const liveRows = sessions.listLive();
  const liveIds = new Set(liveRows.map((r) => r.id));

  await Promise.all(
    liveRows.map(async (row) => {
      const paths = guardianPaths(layout, row.id);
      const m = readJson<GuardianManifest>(paths.manifest);
      // A manifest counts only for its own session and with a start time that identifies its pid.
      const manifest = isGuardianManifest(m) && m.gid === row.id && isSameProcess(m.pid, m.startTime) ? m : null;
      const pid = manifest?.pid ?? row.guardian_pid;
      const start = manifest?.startTime ?? row.guardian_start_time;
      if (pid && isSameProcess(pid, start)) {
        try {
          const link = await GuardianLink.connect(row.id, manifest?.socketPath ?? row.guardian_socket ?? paths.socket, LinkTimeouts.GUARDIAN_CONNECT_MS, manager.eventsFor(row.id));
          const st = await link.status();
          manager.adopt(row.id, link, st);
          sessions.update(row.id, {
            state: 'running',
            guardian_pid: st.pid,
            guardian_start_time: st.startTime,
            guardian_socket: manifest?.socketPath ?? paths.socket,
            guardian_build: link.build,
            guardian_proto: link.proto,
            shell_pid: st.shell.pid,
            pty_end: st.pty.end,
            last_activity_at: Math.max(st.clock.lastPtyActivityAt, st.clock.lastInstructionAt),
            ever_executed: st.clock.everExecuted ? 1 : 0,
          });
          events.append({ session_id: row.id, workspace: row.workspace, kind: 'session.adopted', data: { guardian_pid: st.pid, shell_pid: st.shell.pid } });
          report.adopted.push(row.id);
          return;
        } catch (err) {
          log.warn('live guardian did not answer during recovery', { session: row.id, error: (err as Error).message });
        }
      }
      const rec = readJson<ExitRecord>(paths.exitRecord);
      await manager.markEnded(row.id, rec);
      (rec ? report.exited : report.lost).push(row.id);
    }),
  );

  // Manifests nobody owns.
  let names: string[] = [];
  try {
    names = readdirSync(layout.guardianDir);
  } catch {
    names = [];
  }
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    const gid = n.slice(0, -'.json'.length);
    if (liveIds.has(gid)) continue;
    const m = readJson<GuardianManifest>(join(layout.guardianDir, n));
    // Only a process this manifest identifies — pid and start time, run by us — is killed
    // (issue 18: a manifest without a start time named any pid, and the daemon killed it).
    if (isGuardianManifest(m) && m.gid === gid && isSameProcess(m.pid, m.startTime) && processUid(m.pid) === (process.geteuid?.() ?? 0)) {
      await killWithEscalation([m.pid]);
      report.orphansKilled.push(gid);
      events.append({ session_id: gid, kind: 'guardian.orphan_killed', data: { pid: m.pid } });
    }
    rmSync(join(layout.guardianDir, n), { force: true });
  }
  return report;
}
