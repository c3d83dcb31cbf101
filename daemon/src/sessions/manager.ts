import { realpathSync, rmSync } from 'node:fs';
import type { HoldfastConfig, SandboxSettings } from '@holdfast/shared/config';
import type { Affinity, SessionView } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { isId, newId } from '@holdfast/shared/ids';
import { guardianPaths, type HomeLayout } from '@holdfast/shared/paths';
import { isProcessAlive, isSameProcess, processStartTime, readJson, SessionDefaults, type CommandRecord, type ExitRecord, type GuardianStatus, type ShutdownParams, type TaskRecord } from '@holdfast/shared/protocol';
import type { ConfigStore } from '../config-store.js';
import { SandboxPlanner, type SandboxPlan } from '../sandbox/planner.js';
import type { SandboxRequirement } from '../sandbox/requirement.js';
import { parseSessionSandbox, sandboxView, unmetRequirement } from '../sandbox/session-sandbox.js';
import type { Logger } from '../log.js';
import type { EventsRepo } from '../store/events-repo.js';
import type { SessionRolesRepo } from '../store/session-roles-repo.js';
import type { SessionRow, SessionsRepo } from '../store/sessions-repo.js';
import { requireSessionAccess, type SessionRole } from './access.js';
import { launchGuardian } from './launcher.js';
import { chooseLocale } from './locale.js';
import { GuardianLink } from './link.js';
import { killWithEscalation, sweepSession } from './process-sweep.js';
import { maxLivePerPrincipal, pickReclaimable, quotaCounts, type LiveSessionFacts } from './quota.js';
import { SpawnQueue } from './spawn-queue.js';

/** A session's tool use is written to the database at most this often, ms (issue 18). */
const TOOL_USE_PERSIST_MS = 5000;

/** A new session's open waits for the first prompt this much longer than `shell.rc_timeout_ms`, ms. */
const OPEN_READY_SLACK_MS = 2500;

/** Why the daemon ended a session (`end_reason`), DESIGN §4.3–§4.4. */
export type EndReason = ShutdownParams['reason'];

export interface OpenRequest {
  principal: string;
  workspace?: string | undefined;
  remote_session_id?: string | undefined;
  affinity: Affinity;
  conversation_id?: string | undefined;
  /** The principal's own sandbox keys from its call context (issue 17). */
  sandbox?: SandboxSettings | undefined;
  /** Aborted when the caller gives up: an open still waiting in the spawn queue leaves it. */
  signal?: AbortSignal | undefined;
}

export interface OpenResult {
  session: SessionView;
  created: boolean;
}

interface Entry {
  link: GuardianLink | null;
  linking: Promise<GuardianLink> | null;
  /** Last status read from the guardian, and when. */
  status: GuardianStatus | null;
  statusAt: number;
  /** Set while the daemon itself is ending the session (a link close is then expected). */
  ending: boolean;
}

/**
 * The session registry (DESIGN §4): attach-or-create with a single-flight per key, quota with
 * reclaim, kill escalation, and the bookkeeping of every state change (a lifecycle event row
 * each). The DB holds intent; guardians hold runtime truth; links connect the two.
 */
export class SessionManager {
  private readonly entries = new Map<string, Entry>();
  /** Listeners of finished commands/tasks and of ended sessions (the execute engine keeps `tasks` in step). */
  private readonly doneListeners: ((sessionId: string, rec: CommandRecord | TaskRecord) => void)[] = [];
  private readonly endedListeners: ((sessionId: string, rec: ExitRecord | null) => void)[] = [];
  private readonly inflight = new Map<string, Promise<OpenResult>>();
  /** Last known working directory of each session's shell (from finished commands and status). */
  private readonly cwds = new Map<string, string>();
  private createChain: Promise<unknown> = Promise.resolve();
  /** Last tool use per session (epoch ms), ahead of what `sessions.last_tool_at` holds. */
  private readonly toolUse = new Map<string, number>();
  /** When a (session, principal) use was last checked against the database and written. */
  private readonly toolUseChecked = new Map<string, number>();
  /** Guardian starts in flight and waiting (`sessions.spawn`). */
  private readonly spawns = new SpawnQueue(
    () => this.cfg.spawn.concurrency,
    () => this.cfg.spawn.queue,
  );
  /** `<session>:<shell generation>` whose skipped rc files are already in the event log. */
  private readonly rcNoted = new Set<string>();
  /** Per session, the command whose wait at a prompt is in the event log, with the link's input count then. */
  private readonly awaitingNoted = new Map<string, { task: string; inputs: number }>();
  /** Plans the sandbox of new sessions (issue 17); `holdfast doctor` asks it for probes. */
  readonly sandbox: SandboxPlanner;

  constructor(
    private readonly layout: HomeLayout,
    private readonly config: ConfigStore,
    private readonly sessions: SessionsRepo,
    private readonly events: EventsRepo,
    private readonly log: Logger,
    /** Roles granted on sessions (issue 14); read through {@link roleOf}. */
    readonly roles: SessionRolesRepo,
    /** Sees a failed bookkeeping write; true when it was a full disk (issue 18), which is then not fatal. */
    private readonly onWriteError: (err: unknown) => boolean = () => false,
  ) {
    this.sandbox = new SandboxPlanner(layout, () => config.config.security.sandbox);
  }

  private get cfg(): HoldfastConfig['sessions'] {
    return this.config.config.sessions;
  }

  // ---- open ----------------------------------------------------------------------------------

  /**
   * Attach-or-create (DESIGN §4.2). With `remote_session_id`: exactly that session, when this
   * principal holds any role on it (issue 14), else `SESSION_NOT_FOUND`. Otherwise the live
   * session of the affinity key, or a new one (one guardian per key even under concurrent opens).
   * The principal's sandbox requirement (issue 17) holds for both: a new session is confined as
   * required or not opened, and a live session that does not meet it is not handed out.
   * @throws HoldfastError SESSION_NOT_FOUND, WORKSPACE_NOT_FOUND, QUOTA_EXCEEDED, SPAWN_FAILED,
   *   SANDBOX_UNAVAILABLE, POLICY_DENIED (a live session runs with a weaker sandbox than required),
   *   SPAWN_QUEUE_FULL (retryable), CANCELLED.
   */
  async open(req: OpenRequest): Promise<OpenResult> {
    const need = this.sandbox.requirement(req.principal, req.sandbox);
    if (req.remote_session_id !== undefined) {
      const row = requireSessionAccess({ call: { principal: req.principal }, services: { sessions: this } }, req.remote_session_id, 'viewer').session;
      if (row.state === 'running') {
        this.assertMeets(row.id, row.sandbox, need);
        await this.ensureLink(row.id).catch(() => undefined);
      }
      return { session: await this.view(row.id), created: false };
    }
    const ws = this.resolveWorkspace(req.workspace);
    const root = canonicalRoot(ws.path);
    const affinity = req.affinity === 'conversation' && !req.conversation_id ? 'workspace' : req.affinity;
    const key = sessionKey(affinity, req.principal, root, req.conversation_id);
    if (key === null) return this.create(req.principal, ws.name, root, affinity, null, need, req.signal);
    const pending = this.inflight.get(key);
    if (pending) return pending.then((r) => ({ ...r, created: false }));
    const p = (async (): Promise<OpenResult> => {
      const live = this.sessions.findLiveByKey(key);
      if (live) {
        if (live.state === 'running') {
          try {
            await this.ensureLink(live.id);
          } catch {
            // unreachable guardian: treat as gone and create a fresh session below
            await this.checkGone(live.id);
          }
        }
        const again = this.sessions.get(live.id);
        if (again && (again.state === 'running' || again.state === 'starting')) {
          this.assertMeets(live.id, again.sandbox, need);
          return { session: await this.view(live.id), created: false };
        }
      }
      return this.create(req.principal, ws.name, root, affinity, key, need, req.signal);
    })().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private resolveWorkspace(name: string | undefined): { name: string; path: string } {
    const all = this.config.config.workspaces;
    if (name === undefined) {
      if (all.length === 1) return all[0]!;
      if (all.length === 0) throw new HoldfastError('WORKSPACE_NOT_FOUND', 'no workspace is registered; run `holdfast workspace register <path>`');
      throw new HoldfastError('BAD_REQUEST', `several workspaces are registered; pass workspace=one of ${all.map((w) => w.name).join(', ')}`, {
        details: { workspaces: all.map((w) => w.name) },
      });
    }
    const ws = this.config.findWorkspace(name);
    if (!ws) {
      throw new HoldfastError('WORKSPACE_NOT_FOUND', `no workspace named "${name}"; registered: ${all.map((w) => w.name).join(', ') || '(none)'}`, {
        details: { workspaces: all.map((w) => w.name) },
      });
    }
    return ws;
  }

  /** @throws HoldfastError POLICY_DENIED when the live session `id` does not meet `need` (issue 17). */
  private assertMeets(id: string, column: string | null, need: SandboxRequirement): void {
    const why = unmetRequirement(parseSessionSandbox(column), need);
    if (why === null) return;
    throw new HoldfastError('POLICY_DENIED', `the live session ${id} cannot be used: ${why}. Close it with session(action="close", remote_session_id="${id}") and open again to get a sandboxed one`, {
      retryable: false,
      details: { remote_session_id: id, required_mode: need.mode, required_network: need.network },
    });
  }

  /**
   * Creates a session in a turn of the spawn queue (issue 18: a bounded number of guardians start
   * at once; beyond the queue's bound the open is refused with a retryable `SPAWN_QUEUE_FULL`).
   */
  private create(principal: string, workspace: string, root: string, affinity: Affinity, key: string | null, need: SandboxRequirement, signal?: AbortSignal): Promise<OpenResult> {
    return this.spawns.run(() => this.createNow(principal, workspace, root, affinity, key, need), signal);
  }

  private async createNow(principal: string, workspace: string, root: string, affinity: Affinity, key: string | null, need: SandboxRequirement): Promise<OpenResult> {
    const id = newId('remoteSession');
    // Refused before anything exists: a session that must be confined and cannot be is never started.
    const plan: SandboxPlan | null = await this.sandbox.plan(need, root, guardianPaths(this.layout, id).sessionDir);
    // Quota check + insert are serialised so concurrent opens cannot overshoot the limit.
    const admitted = this.createChain.then(() => this.admit(id, principal, workspace, root, affinity, key));
    this.createChain = admitted.catch(() => undefined);
    const existing = await admitted;
    if (existing) {
      const row = this.sessions.get(existing);
      if (row) this.assertMeets(existing, row.sandbox, need);
      return { session: await this.view(existing), created: false };
    }
    if (plan) this.sessions.update(id, { sandbox: JSON.stringify(plan.session) });

    const entry = this.entry(id);
    try {
      const launched = await launchGuardian(
        this.layout,
        {
          gid: id,
          cwd: root,
          cols: SessionDefaults.PTY_COLS,
          rows: SessionDefaults.PTY_ROWS,
          orphanTimeoutS: this.cfg.orphan_timeout_s,
          ...(this.cfg.shell ? { shell: this.cfg.shell } : {}),
          env: chooseLocale(this.config.config.shell.locale, process.env).env,
          rcTimeoutMs: this.config.config.shell.rc_timeout_ms,
          ...(plan ? { sandbox: plan.spec } : {}),
        },
        this.linkEvents(id),
      );
      entry.link = launched.link;
      const st = await launched.link.status();
      if (plan && st.sandbox?.mode !== plan.spec.mode) {
        // A guardian that does not confine its shell must not serve a session that requires it.
        await launched.link.shutdown({ reason: 'closed' }).catch(() => undefined);
        throw new HoldfastError('SANDBOX_UNAVAILABLE', `the guardian (build ${launched.link.build}) did not apply the ${plan.spec.mode} sandbox; the session was closed`, { retryable: false });
      }
      entry.status = st;
      entry.statusAt = Date.now();
      this.sessions.update(id, {
        state: 'running',
        guardian_pid: st.pid,
        guardian_start_time: st.startTime ?? processStartTime(st.pid),
        guardian_socket: guardianPaths(this.layout, id).socket,
        guardian_proto: launched.link.proto,
        guardian_build: launched.link.build,
        shell_pid: st.shell.pid,
      });
      this.events.append({ session_id: id, workspace, kind: 'session.running', data: { guardian_pid: st.pid, shell_pid: st.shell.pid, sandbox: sandboxView(this.sessions.get(id)?.sandbox) } });
      // The first answer says how the shell started (rc files loaded or skipped, and why): wait
      // for its first prompt, bounded by the rc timeout plus the fallback's start (issue 9).
      if (!st.shell.ready) {
        entry.status = await launched.link.statusWhenReady(this.config.config.shell.rc_timeout_ms + OPEN_READY_SLACK_MS);
        entry.statusAt = Date.now();
      }
    } catch (err) {
      this.sessions.update(id, { state: 'lost', ended_at: Date.now(), end_reason: 'spawn_failed' });
      this.events.append({ session_id: id, workspace, kind: 'session.lost', data: { reason: 'spawn_failed', message: (err as Error).message } });
      this.entries.delete(id);
      throw err;
    }
    return { session: await this.view(id), created: true };
  }

  /** Quota + insert. Returns the id of a live session that won the key instead, or null. */
  private async admit(id: string, principal: string, workspace: string, root: string, affinity: Affinity, key: string | null): Promise<string | null> {
    if (key !== null) {
      const live = this.sessions.findLiveByKey(key);
      if (live) return live.id;
    }
    // Per principal first: one principal never holds more than its share, so it cannot take every
    // session; at its cap, its own least recently active never-executed idle session is reclaimed.
    const perPrincipal = maxLivePerPrincipal(this.cfg.max_live, this.cfg.max_live_per_principal);
    const mine = this.sessions.listLive().filter((s) => s.principal === principal);
    if (mine.length >= perPrincipal) {
      const facts = await this.liveFacts(mine);
      const own = pickReclaimable(facts, principal);
      if (!own) {
        const counts = quotaCounts(facts, this.cfg.max_live);
        throw new HoldfastError(
          'QUOTA_EXCEEDED',
          `principal "${principal}" already holds ${mine.length} live sessions, its limit (sessions.max_live_per_principal = ${perPrincipal}), and none of them can be reclaimed (${counts.busy} busy, ${counts.idle_executed} idle after executing); close one with session(action="close") or \`holdfast prune\`, or raise sessions.max_live_per_principal`,
          { retryable: false, details: { principal, live_for_principal: mine.length, max_live_per_principal: perPrincipal, busy: counts.busy, idle_executed: counts.idle_executed, never_executed: counts.never_executed } },
        );
      }
      await this.end(own, 'reclaimed');
    }
    const live = this.sessions.listLive();
    if (live.length >= this.cfg.max_live) {
      const facts = await this.liveFacts(live);
      const victim = pickReclaimable(facts, principal);
      if (!victim) {
        const counts = quotaCounts(facts, this.cfg.max_live);
        throw new HoldfastError(
          'QUOTA_EXCEEDED',
          `${counts.live} of ${counts.max_live} sessions are live (${counts.busy} busy, ${counts.idle_executed} idle after executing, ${counts.never_executed} never used) and none can be reclaimed; close one with session(action="close") or \`holdfast prune\``,
          { retryable: false, details: { ...counts } },
        );
      }
      await this.end(victim, 'reclaimed');
    }
    try {
      this.sessions.insert({ id, principal, workspace, workspace_root: root, affinity, session_key: key }, Date.now());
    } catch (err) {
      if (key !== null && /UNIQUE/.test((err as Error).message)) {
        const won = this.sessions.findLiveByKey(key);
        if (won) return won.id;
      }
      throw err;
    }
    this.events.append({ session_id: id, workspace, kind: 'session.created', data: { principal, affinity, workspace_root: root } });
    return null;
  }

  // ---- links ---------------------------------------------------------------------------------

  private entry(id: string): Entry {
    let e = this.entries.get(id);
    if (!e) {
      e = { link: null, linking: null, status: null, statusAt: 0, ending: false };
      this.entries.set(id, e);
    }
    return e;
  }

  /** Calls `fn` for every `g.done` (a command or task finished) of any session. */
  onRecordDone(fn: (sessionId: string, rec: CommandRecord | TaskRecord) => void): void {
    this.doneListeners.push(fn);
  }

  /** Calls `fn` when a session has ended (with its exit record, if any), after its row is updated. */
  onSessionEnded(fn: (sessionId: string, rec: ExitRecord | null) => void): void {
    this.endedListeners.push(fn);
  }

  private linkEvents(id: string) {
    return {
      onExit: (rec: ExitRecord) => void this.markEnded(id, rec),
      onDone: (rec: CommandRecord | TaskRecord) => {
        const e = this.entries.get(id);
        if (e) e.statusAt = 0; // status changed: refresh on next view
        if (rec.kind === 'command' && rec.cwd) this.cwds.set(id, rec.cwd);
        for (const fn of this.doneListeners) fn(id, rec);
      },
      onAwaiting: (rec: CommandRecord) => {
        const e = this.entries.get(id);
        if (e) e.statusAt = 0; // the foreground changed: refresh on next view
        if (rec.awaitingInput === true && rec.state === 'running') this.noteAwaiting(id, rec);
      },
      onClose: () => {
        const e = this.entries.get(id);
        if (e) e.link = null;
        if (e && !e.ending) void this.checkGone(id);
      },
    };
  }

  /**
   * The link to a running session's guardian, connecting if needed.
   * @throws HoldfastError SESSION_EXITED when the session is not running, GUARDIAN_UNAVAILABLE.
   */
  async ensureLink(id: string): Promise<GuardianLink> {
    const row = this.sessions.get(id);
    if (!row) throw new HoldfastError('SESSION_NOT_FOUND', `no session ${id}`);
    if (row.state !== 'running' && row.state !== 'starting') {
      throw new HoldfastError('SESSION_EXITED', `session ${id} is ${row.state}${row.end_reason ? ` (${row.end_reason})` : ''}; open a new one with session(action="open")`);
    }
    const e = this.entry(id);
    if (e.link && e.link.isOpen) return e.link;
    if (e.linking) return e.linking;
    if (!row.guardian_socket) throw new HoldfastError('GUARDIAN_UNAVAILABLE', `session ${id} is still starting; retry shortly`);
    const socket = row.guardian_socket;
    e.linking = GuardianLink.connect(id, socket, 3000, this.linkEvents(id))
      .then((link) => {
        e.link = link;
        return link;
      })
      .catch(async (err: unknown) => {
        await this.checkGone(id);
        throw new HoldfastError('GUARDIAN_UNAVAILABLE', `cannot reach the guardian of ${id}: ${(err as Error).message}`, { cause: err });
      })
      .finally(() => {
        e.linking = null;
      });
    return e.linking;
  }

  /** Adopts an already-connected guardian (recovery). */
  adopt(id: string, link: GuardianLink, st: GuardianStatus): void {
    const e = this.entry(id);
    e.link = link;
    e.status = st;
    e.statusAt = Date.now();
  }

  /** Events for links made by recovery. */
  eventsFor(id: string) {
    return this.linkEvents(id);
  }

  /** Current guardian status (cached up to `maxAgeMs`). */
  async status(id: string, maxAgeMs = 0): Promise<GuardianStatus> {
    const e = this.entry(id);
    if (e.status && Date.now() - e.statusAt <= maxAgeMs) return e.status;
    const link = await this.ensureLink(id);
    const st = await link.status();
    e.status = st;
    e.statusAt = Date.now();
    if (st.cwd) this.cwds.set(id, st.cwd);
    this.noteRcSkipped(id, st);
    const lastActivity = Math.max(st.clock.lastPtyActivityAt, st.clock.lastInstructionAt);
    const row = this.sessions.get(id);
    if (row && (row.last_activity_at !== lastActivity || row.ever_executed !== (st.clock.everExecuted ? 1 : 0) || row.shell_pid !== st.shell.pid)) {
      try {
        this.sessions.update(id, { last_activity_at: lastActivity, ever_executed: st.clock.everExecuted ? 1 : 0, pty_end: st.pty.end, shell_pid: st.shell.pid });
      } catch (err) {
        // A cached copy of the guardian's clock: on a full disk the guardian still has the truth.
        if (!this.onWriteError(err)) throw err;
      }
    }
    return st;
  }

  /**
   * Writes a `session.awaiting_input` event (data: execution task id and command; `holdfast
   * observe` shows the command's output tail from its log) when the foreground command starts
   * waiting at a prompt — once per prompt: again for the same command only after input was sent
   * through this daemon, so a program that prints while it waits does not fill the log.
   */
  private noteAwaiting(id: string, rec: CommandRecord): void {
    const inputs = this.entries.get(id)?.link?.inputCount ?? 0;
    const noted = this.awaitingNoted.get(id);
    if (noted && noted.task === rec.id && noted.inputs === inputs) return;
    this.awaitingNoted.set(id, { task: rec.id, inputs });
    try {
      this.events.append({ session_id: id, workspace: this.sessions.get(id)?.workspace ?? null, kind: 'session.awaiting_input', data: { execution_task_id: rec.id, command: rec.command } });
    } catch (err) {
      if (!this.onWriteError(err)) this.log.warn(`cannot record that ${rec.id} awaits input: ${(err as Error).message}`);
    }
  }

  /** Writes a `session.rc_skipped` event once per shell generation whose rc files were skipped (doctor reads them). */
  private noteRcSkipped(id: string, st: GuardianStatus): void {
    const skipped = st.shell.rcSkipped;
    if (!skipped) return;
    const key = `${id}:${st.shell.generation}`;
    if (this.rcNoted.has(key)) return;
    this.rcNoted.add(key);
    this.events.append({ session_id: id, workspace: this.sessions.get(id)?.workspace ?? null, kind: 'session.rc_skipped', data: { ...skipped, generation: st.shell.generation } });
  }

  /**
   * Checks whether a session whose link closed is really gone: guardian dead → exited (with its
   * exit record) or lost (without one).
   */
  async checkGone(id: string): Promise<boolean> {
    const row = this.sessions.get(id);
    if (!row || (row.state !== 'running' && row.state !== 'starting')) return true;
    // A starting session has no guardian pid yet: its launcher decides whether it came up.
    if (row.state === 'starting') return false;
    if (row.guardian_pid && isProcessAlive(row.guardian_pid, row.guardian_start_time)) return false;
    const rec = readJson<ExitRecord>(guardianPaths(this.layout, id).exitRecord);
    await this.markEnded(id, rec);
    return true;
  }

  /**
   * Records the end of a session: `exited` when its shell ended by itself, `closed` when the
   * daemon ended it, `lost` with no exit record. Writes a lifecycle event and sweeps leftovers.
   */
  async markEnded(id: string, rec: ExitRecord | null, reason?: EndReason): Promise<void> {
    const row = this.sessions.get(id);
    if (!row || row.state === 'exited' || row.state === 'closed' || row.state === 'lost') return;
    const why = reason ?? rec?.reason ?? 'lost';
    const state = rec === null && reason === undefined ? 'lost' : why === 'shell_exit' || why === 'orphan' || why === 'signal' ? 'exited' : 'closed';
    this.sessions.update(id, {
      state,
      exit_code: rec?.code ?? null,
      exit_signal: rec?.signal ?? null,
      ended_at: rec?.endedAt ?? Date.now(),
      end_reason: why,
      pty_end: rec?.finalOffsets.pty ?? row.pty_end,
    });
    this.events.append({ session_id: id, workspace: row.workspace, kind: `session.${state}`, data: { reason: why, exit_code: rec?.code ?? null, signal: rec?.signal ?? null } });
    for (const fn of this.endedListeners) fn(id, rec);
    const e = this.entries.get(id);
    e?.link?.close();
    this.entries.delete(id);
    this.cwds.delete(id);
    this.awaitingNoted.delete(id);
    GuardianLink.forget(id);
    this.toolUse.delete(id);
    for (const k of this.toolUseChecked.keys()) if (k.startsWith(`${id}\0`)) this.toolUseChecked.delete(k);
    for (const k of this.rcNoted) if (k.startsWith(`${id}:`)) this.rcNoted.delete(k);
    rmSync(guardianPaths(this.layout, id).manifest, { force: true });
    const swept = await sweepSession(id);
    if (swept > 0) this.log.warn('swept leftover processes', { session: id, count: swept });
  }

  // ---- end -----------------------------------------------------------------------------------

  /**
   * Ends a session (DESIGN §4.4): the guardian runs the kill escalation on the shell's terminal
   * session and every task process group and writes exit.json; if it cannot be reached the daemon
   * kills it (pid + start time checked) and sweeps the session's processes itself.
   */
  async end(id: string, reason: EndReason): Promise<void> {
    const row = this.sessions.get(id);
    if (!row) throw new HoldfastError('SESSION_NOT_FOUND', `no session ${id}`);
    if (row.state !== 'running' && row.state !== 'starting') return;
    const e = this.entry(id);
    e.ending = true;
    let rec: ExitRecord | null = null;
    try {
      const link = await this.ensureLink(id);
      rec = await link.shutdown({ reason });
      // The guardian answers just before it exits: let it go before sweeping what is left.
      const until = Date.now() + 3000;
      while (row.guardian_pid && isSameProcess(row.guardian_pid, row.guardian_start_time) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    } catch (err) {
      this.log.warn('guardian shutdown failed; killing it directly', { session: id, error: (err as Error).message });
      if (row.guardian_pid && isSameProcess(row.guardian_pid, row.guardian_start_time)) await killWithEscalation([row.guardian_pid]);
    }
    await this.markEnded(id, rec, reason);
  }

  /**
   * The shell's current working directory (for judging relative paths, issue 5): the last one a
   * finished command reported, else asked from the guardian; null when it cannot be known.
   */
  async shellCwd(id: string): Promise<string | null> {
    const known = this.cwds.get(id);
    if (known) return known;
    try {
      return (await this.status(id)).cwd;
    } catch {
      return null;
    }
  }

  /** Records a working directory reported by a command record (execute results). */
  noteCwd(id: string, cwd: string | undefined): void {
    if (cwd) this.cwds.set(id, cwd);
  }

  // ---- queries -------------------------------------------------------------------------------

  /**
   * A session row by id, for the machine owner's ops CLI (no principal involved). Principals go
   * through `requireSessionAccess` (sessions/access.ts) instead.
   * @throws HoldfastError SESSION_NOT_FOUND.
   */
  requireExisting(id: string): SessionRow {
    const row = this.findSession(id);
    if (!row) throw new HoldfastError('SESSION_NOT_FOUND', `no session ${id}; \`holdfast list --all\` shows every session`);
    return row;
  }

  /** The row of a well-formed `rs_…` id, or undefined (no check of who asks). */
  findSession(id: string): SessionRow | undefined {
    return isId('remoteSession', id) ? this.sessions.get(id) : undefined;
  }

  /** The role `principal` holds on a session: `owner` for its creator, a granted role, or null (issue 14). */
  roleOf(row: SessionRow, principal: string): SessionRole | null {
    if (row.principal === principal) return 'owner';
    return this.roles.get(row.id, principal)?.role ?? null;
  }

  /** The live session holding an affinity key (DESIGN §4.2), if any. */
  findLiveByKey(key: string): SessionRow | undefined {
    return this.sessions.findLiveByKey(key);
  }

  /** Ids of the sessions `principal` owns or holds a role on. */
  accessibleSessionIds(principal: string): Set<string> {
    const ids = new Set(this.roles.sessionIdsFor(principal));
    for (const r of this.sessions.listAll()) if (r.principal === principal) ids.add(r.id);
    return ids;
  }

  /** The public view of a session, with live facts from its guardian when it runs. */
  async view(id: string, maxStatusAgeMs = 0): Promise<SessionView> {
    const row = this.sessions.get(id);
    if (!row) throw new HoldfastError('SESSION_NOT_FOUND', `no session ${id}`);
    let st: GuardianStatus | null = null;
    if (row.state === 'running') {
      try {
        st = await this.status(id, maxStatusAgeMs);
      } catch {
        st = null;
      }
    }
    const fresh = this.sessions.get(id)!;
    return toView(fresh, st, this.cfg, this.lastToolUse(fresh));
  }

  /**
   * Records that a tool call of `principal` used session `id` (issue 18: every tool use — file
   * tools too — counts as activity for the reaper and protects the session from another
   * principal's reclaim). Kept in memory and written to `sessions.last_tool_at` at most every
   * {@link TOOL_USE_PERSIST_MS} per session; a session the principal holds no role on (issue 14)
   * or one that ended is left alone. Never throws (a full disk must not fail the call that used it).
   */
  noteToolUse(id: string, principal: string, now: number = Date.now()): void {
    // The hot path of every tool call: a session checked and written a moment ago is only stamped.
    const key = `${id}\0${principal}`;
    const checked = this.toolUseChecked.get(key);
    if (checked !== undefined && now - checked < TOOL_USE_PERSIST_MS) {
      this.toolUse.set(id, now);
      return;
    }
    const row = this.sessions.get(id);
    if (!row || this.roleOf(row, principal) === null || (row.state !== 'running' && row.state !== 'starting')) return;
    this.toolUse.set(id, now);
    this.toolUseChecked.set(key, now);
    if (row.last_tool_at !== null && now - row.last_tool_at < TOOL_USE_PERSIST_MS) return;
    try {
      this.sessions.update(id, { last_tool_at: now }, now);
    } catch (err) {
      this.onWriteError(err);
      this.log.warn('recording tool activity failed', { session: id, error: (err as Error).message });
    }
  }

  /** Last tool use of a session (epoch ms), or null when no tool used it since its open. */
  private lastToolUse(row: SessionRow): number | null {
    const mem = this.toolUse.get(row.id);
    if (mem === undefined) return row.last_tool_at;
    return Math.max(mem, row.last_tool_at ?? 0);
  }

  /** Views of live sessions (or all, with `all`). */
  async list(all: boolean): Promise<SessionView[]> {
    const rows = all ? this.sessions.listAll() : this.sessions.listLive();
    return Promise.all(rows.map((r) => this.view(r.id, 500)));
  }

  /** Idle facts of live sessions (used by quota, reaper and prune). */
  async liveFacts(rows: SessionRow[] = this.sessions.listLive()): Promise<LiveSessionFacts[]> {
    const now = Date.now();
    return Promise.all(
      rows.map(async (r): Promise<LiveSessionFacts> => {
        const tool = this.lastToolUse(r);
        const base = { id: r.id, principal: r.principal, used: tool !== null };
        try {
          const st = await this.status(r.id, 0);
          const last = Math.max(st.clock.lastPtyActivityAt, st.clock.lastInstructionAt, tool ?? 0);
          return { ...base, busy: st.clock.busy, everExecuted: st.clock.everExecuted, idleMs: now - last, lastActivityAt: last, reachable: true };
        } catch {
          const last = Math.max(r.last_activity_at, tool ?? 0);
          return { ...base, busy: false, everExecuted: r.ever_executed === 1, idleMs: now - last, lastActivityAt: last, reachable: false };
        }
      }),
    );
  }

  /** Idle TTL of a tier, ms (DESIGN §4.3). */
  ttlMs(everExecuted: boolean): number {
    return 1000 * (everExecuted ? this.cfg.ttl_executed_s : this.cfg.ttl_never_executed_s);
  }

  /** Live links (for restart handoff). */
  liveLinks(): GuardianLink[] {
    return [...this.entries.values()].map((e) => e.link).filter((l): l is GuardianLink => l !== null && l.isOpen);
  }

  /** Says bye to every guardian and drops the links (restart handoff, DESIGN §4.5). */
  async byeAll(): Promise<void> {
    const links = this.liveLinks();
    for (const e of this.entries.values()) e.ending = true;
    await Promise.all(links.map((l) => l.bye()));
  }
}

/** The affinity key (DESIGN §4.2), or null for `thread` (always a new session). */
export function sessionKey(affinity: Affinity, principal: string, root: string, conversationId?: string): string | null {
  switch (affinity) {
    case 'workspace':
      return JSON.stringify(['w', principal, root]);
    case 'conversation':
      return JSON.stringify(['c', principal, conversationId ?? '', root]);
    case 'thread':
      return null;
  }
}

function canonicalRoot(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    throw new HoldfastError('WORKSPACE_NOT_FOUND', `workspace folder ${path} is not available`);
  }
}

function toView(row: SessionRow, st: GuardianStatus | null, cfg: HoldfastConfig['sessions'], lastTool: number | null): SessionView {
  const lastActivity = Math.max(st ? Math.max(st.clock.lastPtyActivityAt, st.clock.lastInstructionAt) : row.last_activity_at, lastTool ?? 0);
  const ever = st ? st.clock.everExecuted : row.ever_executed === 1;
  const endTime = row.ended_at ?? Date.now();
  return {
    remote_session_id: row.id,
    principal: row.principal,
    workspace: row.workspace,
    workspace_root: row.workspace_root,
    affinity: row.affinity,
    state: row.state,
    guardian_pid: row.guardian_pid,
    shell_pid: st ? st.shell.pid : row.shell_pid,
    created_at: row.created_at,
    last_activity_at: lastActivity,
    ever_executed: ever,
    busy: st ? st.clock.busy : false,
    shell_ready: st ? st.shell.ready : false,
    rc_skipped: st?.shell.rcSkipped ?? null,
    idle_seconds: Math.max(0, Math.round((endTime - lastActivity) / 1000)),
    ttl_seconds: ever ? cfg.ttl_executed_s : cfg.ttl_never_executed_s,
    pty_end: st ? st.pty.end : row.pty_end,
    exit_code: row.exit_code,
    exit_signal: row.exit_signal,
    ended_at: row.ended_at,
    end_reason: row.end_reason,
    sandbox: sandboxView(row.sandbox),
  };
}
