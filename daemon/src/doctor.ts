import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildString } from '@holdfast/shared/build';
import type { DoctorCheck } from '@holdfast/shared/control';
import { longestSocketPathBytes, SUN_PATH_MAX_BYTES, type HomeLayout } from '@holdfast/shared/paths';
import { isGuardianManifest, isProcessAlive, readJson, type GuardianManifest } from '@holdfast/shared/protocol';
import type { SandboxPlanner } from './sandbox/planner.js';
import type { Db } from './store/db.js';
import type { SessionsRepo } from './store/sessions-repo.js';
import { guardianBundlePath } from './sessions/launcher.js';

function mode(path: string): string | null {
  try {
    return (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
  } catch {
    return null;
  }
}

/**
 * `holdfast doctor` (DESIGN §7), run inside the daemon. Redacted: paths, modes, counts and
 * versions only — never tokens or file contents. Checks: versions, paths and socket path length,
 * permissions, DB integrity, DB rows against live guardians, orphan manifests, node-pty loading,
 * systemd KillMode, and the sandbox (issue 17): the configured mode, whether bwrap and the
 * Landlock helper work here, and what `auto` would pick.
 */
export async function runDoctor(layout: HomeLayout, db: Db, sessions: SessionsRepo, sandbox?: SandboxPlanner): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const add = (name: string, ok: boolean, detail: string, data?: Record<string, unknown>): void => {
    checks.push(data ? { name, ok, detail, data } : { name, ok, detail });
  };

  add('versions', true, `holdfast ${buildString()}, node ${process.version}, ${process.platform}/${process.arch}`, { build: buildString(), node: process.version });

  const sockLen = longestSocketPathBytes(layout.runDir);
  add('socket path', sockLen <= SUN_PATH_MAX_BYTES, `run dir ${layout.runDir}${layout.runDirRelocated ? ' (relocated: home path too long for sun_path)' : ''}; longest socket path ${sockLen} of ${SUN_PATH_MAX_BYTES} bytes`, {
    run_dir: layout.runDir,
    relocated: layout.runDirRelocated,
    longest_socket_bytes: sockLen,
  });

  const wantPrivate: [string, string][] = [
    [layout.home, '0700'],
    [layout.runDir, '0700'],
    [layout.stateDir, '0700'],
    [layout.logsDir, '0700'],
    [layout.db, '0600'],
    [layout.daemonSocket, '0600'],
  ];
  const optional: [string, string][] = [
    [layout.token, '0600'],
    [layout.config, '0600'],
    [layout.usageLog, '0600'],
    [layout.auditLog, '0600'],
  ];
  const bad: string[] = [];
  for (const [p, want] of wantPrivate) {
    const m = mode(p);
    if (m !== want) bad.push(`${p} is ${m ?? 'missing'} (want ${want})`);
  }
  for (const [p, want] of optional) {
    const m = mode(p);
    if (m !== null && (parseInt(m, 8) & 0o077) !== 0) bad.push(`${p} is ${m} (want ${want})`);
  }
  add('permissions', bad.length === 0, bad.length === 0 ? 'home, run dir, state, logs, DB and socket are private' : bad.join('; '));

  const integrity = db.pragma('integrity_check', { simple: true }) as string;
  const journal = db.pragma('journal_mode', { simple: true }) as string;
  const version = db.pragma('user_version', { simple: true }) as number;
  add('database', integrity === 'ok', `integrity ${integrity}, journal ${journal}, schema v${version}`, { integrity, journal_mode: journal, schema_version: version });

  const live = sessions.listLive();
  const dead = live.filter((r) => !(r.guardian_pid && isProcessAlive(r.guardian_pid, r.guardian_start_time)));
  add('sessions', dead.length === 0, `${live.length} live rows, ${live.length - dead.length} with a live guardian${dead.length ? `; without: ${dead.map((r) => r.id).join(', ')}` : ''}`, {
    live_rows: live.length,
    live_guardians: live.length - dead.length,
    rows_without_guardian: dead.map((r) => r.id),
  });

  const liveIds = new Set(live.map((r) => r.id));
  let orphans: string[] = [];
  try {
    orphans = readdirSync(layout.guardianDir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .filter((gid) => !liveIds.has(gid))
      .filter((gid) => {
        const m = readJson<GuardianManifest>(join(layout.guardianDir, `${gid}.json`));
        return isGuardianManifest(m) && isProcessAlive(m.pid, m.startTime);
      });
  } catch {
    orphans = [];
  }
  add('orphans', orphans.length === 0, orphans.length === 0 ? 'no guardian runs without a session row' : `guardians without a row: ${orphans.join(', ')}`, { orphans });

  try {
    const bundle = guardianBundlePath();
    const guardianDir = dirname(dirname(bundle));
    const out = execFileSync(process.execPath, ['-e', "const p=require('node-pty');process.stdout.write(typeof p.spawn)"], { cwd: guardianDir, encoding: 'utf8', timeout: 10_000 });
    add('node-pty', out === 'function', `node-pty loads for the guardian (${bundle})`);
  } catch (err) {
    add('node-pty', false, `node-pty does not load: ${(err as Error).message.split('\n')[0]}`);
  }

  if (sandbox) {
    const r = await sandbox.report();
    const usable = r.mode === 'off' || (r.mode === 'auto' ? r.auto !== 'none' : r[r.mode].ok);
    const effective = r.mode === 'auto' ? (r.auto === 'none' ? 'none (sessions that require it are refused)' : r.auto) : r.mode;
    add(
      'sandbox',
      usable,
      `mode ${r.mode} (effective: ${effective}), network ${r.network}; bwrap: ${r.bwrap.detail}; landlock: ${r.landlock.detail}${r.principals.length ? `; per-principal keys: ${r.principals.join(', ')}` : ''}`,
      { mode: r.mode, effective: r.mode === 'auto' ? r.auto : r.mode, network: r.network, bwrap: r.bwrap, landlock: r.landlock, auto: r.auto, principals: r.principals },
    );
  }

  try {
    const out = execFileSync('systemctl', ['--user', 'show', '-p', 'KillMode', '--value', 'holdfastd.service'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    add('systemd', out === '' || out === 'process', out === '' ? 'holdfastd.service not installed' : `KillMode=${out}${out === 'process' ? '' : ' (must be process, or a unit restart kills every session)'}`);
  } catch {
    add('systemd', true, 'systemctl --user not available (not running under systemd)');
  }
  return checks;
}
