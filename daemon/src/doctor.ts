import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildString } from '@holdfast/shared/build';
import { tiocstiFilterSupported } from '@holdfast/shared/seccomp';
import type { UpstreamState } from '@holdfast/shared/protocol';
import { workspaceExtensions } from './extensions/inventory.js';
import type { ToolServices } from './tools/context.js';
import type { DoctorCheck } from '@holdfast/shared/control';
import { longestSocketPathBytes, SUN_PATH_MAX_BYTES, type HomeLayout } from '@holdfast/shared/paths';
import { isGuardianManifest, isProcessAlive, readJson, type GuardianManifest } from '@holdfast/shared/protocol';
import type { SandboxPlanner } from './sandbox/planner.js';
import { storeChecks, type StoreFacts } from './doctor-store.js';
import type { Db } from './store/db.js';
import type { EventsRepo } from './store/events-repo.js';
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
 * permissions, DB integrity, what the store and logs hold and what retention removes next
 * (issue 11, with `held`), DB rows against live guardians, orphan manifests, node-pty loading,
 * systemd KillMode, the sandbox (issue 17): the configured mode, whether bwrap and the Landlock
 * helper work here, and what `auto` would pick; and per workspace its skills and upstream MCP
 * servers with their states (issue 13); and a warning naming the start-up files sessions had to
 * skip in the last {@link RC_SKIPPED_WINDOW_DAYS} days (issue 9). `extra` parts omitted: those
 * checks are skipped.
 */
export async function runDoctor(
  layout: HomeLayout,
  db: Db,
  sessions: SessionsRepo,
  extra: { sandbox?: SandboxPlanner; services?: ToolServices; held?: StoreFacts } = {},
): Promise<DoctorCheck[]> {
  const { sandbox, services, held } = extra;
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

  if (held) for (const c of storeChecks(layout, db, sessions, held)) checks.push(c);

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

  let sandboxMode = 'off';
  if (sandbox) {
    const r = await sandbox.report();
    sandboxMode = r.mode;
    const usable = r.mode === 'off' || (r.mode === 'auto' ? r.auto !== 'none' : r[r.mode].ok);
    const effective = r.mode === 'auto' ? (r.auto === 'none' ? 'none (sessions that require it are refused)' : r.auto) : r.mode;
    add(
      'sandbox',
      usable,
      `mode ${r.mode} (effective: ${effective}), network ${r.network}; bwrap: ${r.bwrap.detail}; landlock: ${r.landlock.detail}${r.principals.length ? `; per-principal keys: ${r.principals.join(', ')}` : ''}`,
      { mode: r.mode, effective: r.mode === 'auto' ? r.auto : r.mode, network: r.network, bwrap: r.bwrap, landlock: r.landlock, auto: r.auto, principals: r.principals },
    );
  }
  checks.push(tiocstiCheck(sandboxMode));
  if (services) for (const c of await extensionChecks(services, live)) checks.push(c);
  // Desktop (issue 15): informational — only sessions that use a desktop need these.
  const onPath = (bin: string): boolean => (process.env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(join(d, bin)));
  const server = onPath('Xtigervnc') ? 'Xtigervnc' : onPath('Xvfb') && onPath('x11vnc') ? 'Xvfb + x11vnc' : null;
  const bus = process.env.DBUS_SESSION_BUS_ADDRESS ? 'a D-Bus session for the keyring' : 'no D-Bus session (device passwords need --credential env:VAR or none)';
  add('desktop', true, `${server ? `private display: ${server}` : 'no private display server (install tigervnc-standalone-server)'}; ${bus}`, { virtual_server: server, dbus: Boolean(process.env.DBUS_SESSION_BUS_ADDRESS) });
  if (services) checks.push(rcFilesCheck(services.events));

  try {
    const out = execFileSync('systemctl', ['--user', 'show', '-p', 'KillMode', '--value', 'holdfastd.service'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    add('systemd', out === '' || out === 'process', out === '' ? 'holdfastd.service not installed' : `KillMode=${out}${out === 'process' ? '' : ' (must be process, or a unit restart kills every session)'}`);
  } catch {
    add('systemd', true, 'systemctl --user not available (not running under systemd)');
  }
  return checks;
}

/** Where Linux ≥ 6.2 says whether TIOCSTI works for unprivileged processes (`1`: yes). */
export const LEGACY_TIOCSTI_SYSCTL = '/proc/sys/dev/tty/legacy_tiocsti';

/**
 * `tiocsti` (issue 17, docs/sandbox.md "TIOCSTI"): whether a process of a session can push input
 * into its terminal with `ioctl(TIOCSTI)`, which the shell would run after the prompt, unjudged.
 * Blocked everywhere when the kernel's `dev.tty.legacy_tiocsti` is 0; otherwise only inside a
 * sandbox, by the seccomp filter (where holdfast has one for this architecture). A warning, not
 * a failure, when sessions may run unsandboxed (`mode` is the configured sandbox mode).
 */
export function tiocstiCheck(mode: string, sysctlFile: string = LEGACY_TIOCSTI_SYSCTL): DoctorCheck {
  let sysctl: string | null;
  try {
    sysctl = readFileSync(sysctlFile, 'utf8').trim();
  } catch {
    sysctl = null; // before Linux 6.2: TIOCSTI always works
  }
  const filter = tiocstiFilterSupported();
  const data = { legacy_tiocsti: sysctl, seccomp_filter: filter, sandbox_mode: mode };
  if (sysctl === '0') return { name: 'tiocsti', ok: true, detail: 'TIOCSTI is blocked by the kernel (dev.tty.legacy_tiocsti=0): no session process can push input into its terminal', data };
  const kernel = sysctl === null ? 'this kernel has no dev.tty.legacy_tiocsti switch (before 6.2): TIOCSTI works' : 'TIOCSTI is allowed by the kernel (dev.tty.legacy_tiocsti=1)';
  if (!filter) return { name: 'tiocsti', ok: true, warn: true, detail: `${kernel}, and holdfast has no seccomp filter for ${process.arch}: a session process can push input into its terminal; set sysctl dev.tty.legacy_tiocsti=0`, data };
  const inside = 'sandboxed sessions block it with a seccomp filter';
  if (mode !== 'off') return { name: 'tiocsti', ok: true, detail: `${kernel}; ${inside} (sandbox mode ${mode})`, data };
  return { name: 'tiocsti', ok: true, warn: true, detail: `${kernel}; ${inside}, but sandbox mode is off: unsandboxed sessions are not protected — set sysctl dev.tty.legacy_tiocsti=0 or turn the sandbox on`, data };
}

/** How far back doctor looks for sessions that skipped the user's rc files, days. */
export const RC_SKIPPED_WINDOW_DAYS = 7;

/**
 * `shell start-up`: a warning (not a failure) for every start-up file sessions had to skip
 * recently — the file, why, when and how often — from the `session.rc_skipped` events (issue 9).
 */
function rcFilesCheck(events: EventsRepo): DoctorCheck {
  const since = Date.now() - RC_SKIPPED_WINDOW_DAYS * 86_400_000;
  const byFile = new Map<string, { file: string | null; detail: string; reason: string; last_at: number; sessions: Set<string> }>();
  for (const e of events.ofKindSince('session.rc_skipped', since, 200)) {
    const d = e.data ? (JSON.parse(e.data) as { file?: string | null; detail?: string; reason?: string }) : {};
    const key = d.file ?? '(unknown file)';
    const seen = byFile.get(key) ?? { file: d.file ?? null, detail: d.detail ?? '', reason: d.reason ?? '', last_at: e.at, sessions: new Set<string>() };
    if (e.session_id) seen.sessions.add(e.session_id);
    byFile.set(key, seen);
  }
  if (byFile.size === 0) return { name: 'shell start-up', ok: true, detail: `no session had to skip your rc files in the last ${RC_SKIPPED_WINDOW_DAYS} days` };
  const files = [...byFile.values()];
  const detail = files
    .map((f) => `look at ${f.file ?? 'your shell start-up files'}: it ${f.detail} (${f.sessions.size} session${f.sessions.size === 1 ? '' : 's'}, last ${new Date(f.last_at).toISOString()}); sessions skipped it and run without ~/.bashrc`)
    .join('; ');
  return {
    name: 'shell start-up',
    ok: true,
    warn: true,
    detail,
    data: { files: files.map((f) => ({ file: f.file, reason: f.reason, detail: f.detail, sessions: f.sessions.size, last_at: f.last_at })) },
  };
}

/**
 * One check per registered workspace (issue 13): its skills (kind, or why invalid) and upstream
 * servers (source and state; live states from the workspace's running sessions). Fails when a
 * skill or server entry is invalid.
 */
async function extensionChecks(services: ToolServices, live: ReturnType<SessionsRepo['listLive']>): Promise<DoctorCheck[]> {
  const cfg = services.config.config;
  const x = services.extensions;
  const out: DoctorCheck[] = [];
  for (const ws of cfg.workspaces) {
    let root: string;
    try {
      root = realpathSync(ws.path);
    } catch {
      continue;
    }
    const states: UpstreamState[] = [];
    const running = new Map<string, number[]>();
    for (const row of live.filter((r) => r.workspace_root === root && r.state === 'running')) {
      try {
        const link = await services.sessions.ensureLink(row.id);
        if (!link.hostsUpstreams) continue;
        for (const st of (await link.mcpStatus()).servers) {
          states.push(st);
          if (st.state === 'running' && st.pid !== null) running.set(st.name, [...(running.get(st.name) ?? []), st.pid]);
        }
      } catch {
        // unreachable guardian: the sessions check reports it
      }
    }
    const found = workspaceExtensions({ config: cfg, approvals: x.approvals, env: x.env, homeSkillsDir: x.homeSkillsDir, workspaceName: ws.name, workspaceRoot: root }, states);
    const skills = found.skills.map((k) => `${k.name} (${k.kind}${k.error ? `: ${k.error}` : ''})`);
    const servers = found.servers.map((v) => {
      const pids = running.get(v.name);
      const state = pids ? `running in ${pids.length} session(s), pid ${pids.join(', ')}` : v.state;
      return `${v.name} (${v.source}, ${state}${v.problem ? `: ${v.problem}` : ''})`;
    });
    const invalid = found.skills.some((k) => k.kind === 'invalid') || found.servers.some((v) => v.state === 'invalid');
    out.push({
      name: `extensions ${ws.name}`,
      ok: !invalid,
      detail: `skills: ${skills.join(', ') || '(none)'}; mcp servers: ${servers.join(', ') || '(none)'}`,
      data: {
        workspace: ws.name,
        skills: found.skills.map((k) => ({ name: k.name, kind: k.kind, source: k.source, ...(k.error ? { error: k.error } : {}) })),
        mcp_servers: found.servers.map((v) => ({ ...v, ...(running.has(v.name) ? { running_pids: running.get(v.name) } : {}) })),
      },
    });
  }
  return out;
}
