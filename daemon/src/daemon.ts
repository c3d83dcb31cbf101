import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildInfo, buildString } from '@holdfast/shared/build';
import { ControlEvents, type ToolProgressEvent } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { newId } from '@holdfast/shared/ids';
import { ensurePrivateHome, type HomeLayout } from '@holdfast/shared/paths';
import { ProtocolVersions } from '@holdfast/shared/protocol';
import { ensurePrivateDir } from '@holdfast/shared/run-dir';
import { ConfigStore, writeDefaultConfigIfAbsent } from './config-store.js';
import { ControlServer } from './control-server.js';
import { DeviceBook } from './desktop/device-book.js';
import { DesktopPanel } from './desktop/desktop-panel.js';
import { DesktopService } from './desktop/desktop-service.js';
import { OsKeyring } from './desktop/keyring.js';
import { runDoctor } from './doctor.js';
import { createExecutionEngine, type ExecutionEngine } from './execution/wiring.js';
import { approveServer } from './extensions/mcp/approve.js';
import { createExtensionServices, type ExtensionServices } from './extensions/services.js';
import { FileServices } from './files/file-services.js';
import { acquireDaemonLock, clearStaleSocket } from './lock.js';
import type { Logger } from './log.js';
import { OAuthService } from './oauth/service.js';
import { EventStreamHub } from './events/stream-hub.js';
import { EnvironmentService } from './environment/service.js';
import { OperationRunner } from './operations/operation-runner.js';
import { listResources, readResource, resourceTemplates } from './resources/index.js';
import { Retention } from './retention.js';
import { createRouter, type ControlHandlers } from './router.js';
import { SessionManager } from './sessions/manager.js';
import { pickExpired } from './sessions/quota.js';
import { Reaper } from './sessions/reaper.js';
import { recoverSessions } from './sessions/recovery.js';
import { checkpoint, openDatabase, type Db } from './store/db.js';
import { EnvironmentSnapshotsRepo } from './store/environment-snapshots-repo.js';
import { DesktopRepo } from './store/desktop-repo.js';
import { DiskSpace, isDiskFullError } from './store/disk-space.js';
import { EventsRepo, EventsRetention } from './store/events-repo.js';
import { OperationsRepo } from './store/operations-repo.js';
import { RetentionQueries } from './store/retention-queries.js';
import { SessionRolesRepo } from './store/session-roles-repo.js';
import { SessionsRepo } from './store/sessions-repo.js';
import type { ToolServices } from './tools/context.js';
import { callTool } from './tools/registry.js';
import { secretsLink } from './tools/secret-provide.js';
import { createWorkServices, type WorkServices } from './work/services.js';
import { DAEMON_NODE_FLAGS } from '@holdfast/shared/constants';

export interface DaemonOptions {
  layout: HomeLayout;
  /** Wait this long for the lock (a restart successor waits for its predecessor), ms. */
  lockWaitMs: number;
  log: Logger;
}

/**
 * holdfastd (DESIGN §1, §4): singleton start, SQLite state, recovery of guardians, the control
 * socket, the TTL reaper, and the `restart-daemon` handoff. One instance per HOLDFAST_HOME.
 */
export class Daemon {
  readonly layout: HomeLayout;
  private readonly log: Logger;
  private db!: Db;
  private configStore!: ConfigStore;
  private sessionsRepo!: SessionsRepo;
  private eventsRepo!: EventsRepo;
  private manager!: SessionManager;
  private execution!: ExecutionEngine;
  private files!: FileServices;
  private disk!: DiskSpace;
  private oauth!: OAuthService;
  private extensions!: ExtensionServices;
  private work!: WorkServices;
  private streams!: EventStreamHub;
  private retention!: Retention;
  private operations!: OperationRunner;
  private desktop!: DesktopService;
  private desktopPanel!: DesktopPanel;
  private reaper!: Reaper;
  private server!: ControlServer;
  private releaseLock: (() => Promise<void>) | null = null;
  private draining = false;
  private stopped = false;
  private inflight = 0;
  readonly startedAt = Date.now();
  private exitResolve!: (code: number) => void;
  /** Resolves with the exit code when the daemon has stopped. */
  readonly exited = new Promise<number>((r) => (this.exitResolve = r));

  constructor(private readonly opts: DaemonOptions) {
    this.layout = opts.layout;
    this.log = opts.log;
  }

  /** Starts everything; resolves when the control socket accepts connections. */
  async start(): Promise<void> {
    const l = this.layout;
    const homeWarning = ensurePrivateHome(l.home);
    if (homeWarning) this.log.warn(homeWarning);
    // The run folder holds the sockets, lock and manifests: it must be ours alone (issue 18).
    ensurePrivateDir(l.runDir);
    ensurePrivateDir(l.guardianDir);
    for (const d of [l.sessionsDir, l.logsDir, l.stateDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
    // Before anything is written: on a full disk the reserve is given up so this start finds room.
    this.disk = new DiskSpace(l.stateDir, this.log);
    this.disk.start();
    this.releaseLock = await acquireDaemonLock(l, this.opts.lockWaitMs, (err) => {
      this.log.error('daemon lock compromised; stopping', { error: err.message });
      void this.stop(false, 1);
    });
    writeDefaultConfigIfAbsent(l.config);
    this.configStore = new ConfigStore(l.config);
    this.db = openDatabase(l.db);
    this.sessionsRepo = new SessionsRepo(this.db);
    this.eventsRepo = new EventsRepo(this.db, (err) => this.disk.noteError(err));
    this.manager = new SessionManager(l, this.configStore, this.sessionsRepo, this.eventsRepo, this.log, new SessionRolesRepo(this.db, (id) => this.sessionsRepo.forget(id)), (err) => this.disk.noteError(err));
    this.execution = createExecutionEngine(this.db, l, this.manager, this.log);
    this.files = new FileServices(this.db, l, { audit: this.execution.services.audit, projects: this.execution.services.projects });
    // OAuth state lives here; adapters cache keys and approvals and hear about changes (issue 14).
    this.oauth = new OAuthService(this.db, l, this.configStore, this.log, this.execution.services.audit, (change) => this.server?.broadcast(ControlEvents.oauthChanged, change));
    this.extensions = createExtensionServices(this.db, l.skillsDir);
    const sweptTemps = this.files.recover();
    if (sweptTemps.length > 0) this.log.info('removed temp files of interrupted writes', { files: sweptTemps });
    this.work = createWorkServices(this.db, l, this.files.temps);
    const sweptArtifacts = this.work.store.sweepOrphans(this.work.artifacts);
    if (sweptArtifacts.length > 0) this.log.info('removed artifact files that were never recorded', { files: sweptArtifacts });
    const operationsRepo = new OperationsRepo(this.db);
    const snapshots = new EnvironmentSnapshotsRepo(this.db);
    this.retention = new Retention(
      {
        layout: l,
        operations: operationsRepo,
        snapshots,
        queries: new RetentionQueries(this.db),
        tasks: this.execution.services.tasks,
        plans: this.work.plans,
        artifacts: this.work.artifacts,
        artifactStore: this.work.store,
        events: new EventsRetention(this.db),
      },
      () => this.configStore.config.retention,
      this.log,
    );
    this.streams = new EventStreamHub(this.eventsRepo, { layout: l, tasks: this.execution.services.tasks, edits: this.files.edits }, (name) => this.configStore.findWorkspace(name) !== undefined, this.log);
    this.streams.start();
    const desktopRepo = new DesktopRepo(this.db);
    this.desktop = new DesktopService(desktopRepo, new DeviceBook(desktopRepo, new OsKeyring(), this.eventsRepo, l.home), this.manager, this.configStore, this.eventsRepo, this.log);
    this.desktopPanel = new DesktopPanel(this.desktop, this.configStore, l.daemonSocket);
    this.manager.onSessionEnded((id) => this.desktop.onSessionEnded(id));
    const report = await recoverSessions(l, this.manager, this.sessionsRepo, this.eventsRepo, this.log);
    const endedDesktops = this.desktop.reconcile();
    if (endedDesktops > 0) this.log.info('ended desktop sessions of sessions that are gone', { count: endedDesktops });
    this.log.info('recovery done', { adopted: report.adopted.length, exited: report.exited.length, lost: report.lost.length, orphans_killed: report.orphansKilled.length });
    this.eventsRepo.append({ kind: 'daemon.started', data: { pid: process.pid, build: buildString(), ...report } });

    await clearStaleSocket(l.daemonSocket);
    // Operation steps run through the same tool-call path as every call (issue 12).
    this.operations = new OperationRunner(
      { operations: operationsRepo, events: this.eventsRepo, tasks: this.execution.services.tasks, receipts: this.execution.services.receipts },
      (tool, args, ctx, signal, event) => callTool(tool, args, ctx, services, signal, undefined, event),
      this.log,
    );
    const services: ToolServices = {
      layout: l,
      config: this.configStore,
      sessions: this.manager,
      events: this.eventsRepo,
      execution: this.execution.services,
      files: this.files,
      extensions: this.extensions,
      work: this.work,
      operations: { repo: operationsRepo, runner: this.operations },
      environment: new EnvironmentService(snapshots, this.configStore, this.manager),
      desktop: this.desktop,
      desktopPanel: this.desktopPanel,
      disk: this.disk,
    };
    const router = createRouter(this.handlers(services), (m) => {
      if (this.draining && m !== 'daemon.status') throw new HoldfastError('DAEMON_DRAINING', 'holdfastd is restarting; retry in a moment', { retryable: true });
    });
    this.server = new ControlServer(
      l.daemonSocket,
      async (m, p, ctx) => {
        this.inflight++;
        try {
          return await router(m, p, ctx);
        } finally {
          this.inflight--;
        }
      },
      this.log,
    );
    await this.server.listen();
    this.reaper = new Reaper(this.manager, () => this.configStore.config.sessions.reaper_interval_ms, this.log);
    this.reaper.start();
    this.execution.start();
    const ops = this.operations.recover();
    if (ops.resumed + ops.interrupted > 0) this.log.info('operations recovered', ops);
    this.retention.start();
    this.log.info('holdfastd ready', { pid: process.pid, build: buildString(), home: l.home });
  }

  /**
   * Notes a write error raised outside any request (a timer, a guardian event): true when it was a
   * full disk, which holdfastd survives (issue 18).
   */
  noteWriteError(err: unknown): boolean {
    return this.disk?.noteError(err) ?? isDiskFullError(err);
  }

  private handlers(services: ToolServices): ControlHandlers {
    const m = this.manager;
    return {
      'daemon.status': () => ({
        pid: process.pid,
        build: buildString(),
        version: buildInfo().version,
        started_at: this.startedAt,
        draining: this.draining,
        home: this.layout.home,
        socket: this.layout.daemonSocket,
        proto: ProtocolVersions.CONTROL,
        guardian_protos: [...ProtocolVersions.GUARDIAN_SUPPORTED],
        sessions: { live: this.sessionsRepo.listLive().length, total: this.sessionsRepo.listAll().length, max_live: this.configStore.config.sessions.max_live },
      }),
      'daemon.doctor': async () => ({
        checks: await runDoctor(this.layout, this.db, this.sessionsRepo, {
          sandbox: this.manager.sandbox,
          services,
          held: { work: this.work, retention: this.retention, events: new EventsRetention(this.db), tasks: this.execution.services.tasks },
        }),
      }),
      'daemon.restart': () => this.restart(),
      'daemon.stop': (p) => {
        setImmediate(() => void this.stop(p.kill_sessions, 0));
        return { stopping: true };
      },
      'workspace.list': () => ({ workspaces: this.configStore.listWorkspaces() }),
      'workspace.register': (p) => {
        const r = this.configStore.registerWorkspace(p.path, p.name, p.description);
        if (r.created) this.eventsRepo.append({ workspace: r.workspace.name, kind: 'workspace.registered', data: { path: r.workspace.path } });
        return r;
      },
      'workspace.remove': (p) => {
        const live = this.sessionsRepo.listLive().filter((row) => row.workspace === p.name);
        if (live.length > 0) {
          const ids = live.map((row) => row.id).join(', ');
          throw new HoldfastError(
            'BAD_REQUEST',
            `workspace "${p.name}" is used by ${live.length} live session${live.length === 1 ? '' : 's'} (${ids}); end ${live.length === 1 ? 'it' : 'them'} first (holdfast kill <id>, or session(action="close")), then remove the workspace`,
            { retryable: false, details: { sessions: live.map((row) => row.id) } },
          );
        }
        const workspace = this.configStore.removeWorkspace(p.name);
        this.eventsRepo.append({ workspace: workspace.name, kind: 'workspace.removed', data: { path: workspace.path } });
        return { workspace };
      },
      'session.open': (p, ctx) => m.open({ ...p, signal: ctx.signal }),
      'session.list': async (p) => ({ sessions: await m.list(p.all) }),
      'session.get': async (p) => {
        m.requireExisting(p.id);
        return { session: await m.view(p.id) };
      },
      'session.kill': async (p) => {
        // Only live sessions are killed (and reported); an ended one is left as it ended.
        const rows = p.all ? this.sessionsRepo.listLive() : [m.requireExisting(p.id!)];
        const ids = rows.filter((r) => r.state === 'running' || r.state === 'starting').map((r) => r.id);
        await Promise.all(ids.map((id) => m.end(id, 'killed')));
        return { killed: ids };
      },
      'session.prune': async (p) => {
        const facts = await m.liveFacts();
        const override = p.idle_seconds === undefined ? undefined : p.idle_seconds * 1000;
        const pruned = pickExpired(facts, (e) => m.ttlMs(e), override);
        await Promise.all(pruned.map((id) => m.end(id, 'pruned')));
        return { pruned, kept_busy: facts.filter((f) => f.busy).map((f) => f.id) };
      },
      'session.read': async (p) => {
        m.requireExisting(p.id);
        const link = await m.ensureLink(p.id);
        return link.read({ src: 'pty', from: p.from, max: p.max, waitMs: p.wait_ms });
      },
      'session.snapshot': async (p) => {
        m.requireExisting(p.id);
        return (await m.ensureLink(p.id)).snapshot();
      },
      'session.input': async (p) => {
        m.requireExisting(p.id);
        await (await m.ensureLink(p.id)).input({ ...(p.text !== undefined ? { text: p.text } : {}), ...(p.keys !== undefined ? { keys: p.keys } : {}) });
        return { ok: true };
      },
      'session.exec': async (p) => {
        m.requireExisting(p.id);
        const r = await (await m.ensureLink(p.id)).exec({ id: newId('executionTask'), command: p.command, waitMs: p.wait_ms });
        return r.ok ? { ok: true, cmd: r.cmd } : { ok: false, reason: r.reason, cmd: r.running };
      },
      'desktop.device_add': (p) => this.desktop.book.add(p),
      'desktop.device_list': () => ({ devices: this.desktop.book.list() }),
      'desktop.device_remove': (p) => this.desktop.removeDevice(p.alias),
      'desktop.list': () => this.desktop.list(),
      'desktop.pause': (p) => this.desktop.setPaused(p.id, true),
      'desktop.resume': (p) => this.desktop.setPaused(p.id, false),
      'desktop.disconnect': (p) => this.desktop.closeByPerson(p.id),
      'desktop.view': (p) => this.desktop.describeView(p.view_id),
      'desktop.pair': (p) => this.desktop.pair(p.view_id, p.device, p.close),
      'desktop.panel_connect': (p) => this.desktopPanel.connect(p),
      'desktop.panel_link': (p) => this.desktopPanel.link(p.view_id),
      'desktop.view_ticket': (p) => this.desktopPanel.viewTicket(p.view_id),
      'tool.call': (p, ctx) => {
        const id = p.context.progress_id;
        // Progress goes back on the connection that made the call (the adapter forwards it).
        const progress =
          id === undefined ? undefined : (u: Omit<ToolProgressEvent, 'progress_id'>) => void ctx.peer.emitEvent(ControlEvents.toolProgress, { progress_id: id, ...u } satisfies ToolProgressEvent).catch(() => undefined);
        return callTool(p.tool, p.arguments, p.context, services, ctx.signal, progress);
      },
      'secret.pending': async (p) => {
        m.requireExisting(p.id);
        const list = await (await secretsLink(m, p.id)).secretList();
        return {
          requests: list.requests.map((r) => ({ name: r.name, purpose: r.purpose, requested_at: r.requestedAt })),
          secrets: list.secrets.map((x) => ({ name: x.name, purpose: x.purpose, provided_at: x.providedAt, via: x.via })),
        };
      },
      'secret.provide': async (p) => {
        const row = m.requireExisting(p.id);
        const link = await secretsLink(m, p.id);
        const r = await link.secretPut({ name: p.name, value: p.value, via: 'cli' });
        this.execution.services.audit.append({ event: 'secret.provided', principal: 'local-user', remote_session_id: p.id, name: p.name, via: 'cli' });
        this.eventsRepo.append({ session_id: p.id, workspace: row.workspace, kind: 'secret.provided', data: { name: p.name, via: 'cli' } });
        return r;
      },
      'mcp.approve': (p) => {
        const r = approveServer(this.configStore, this.extensions.approvals, p.workspace, p.name);
        this.eventsRepo.append({ workspace: r.workspace, kind: 'mcp.approved', data: { name: r.name, entry_sha256: r.entry_sha256 } });
        return r;
      },
      'resource.templates': () => resourceTemplates(),
      ...this.oauth.handlers(),
      'resource.list': (p) => listResources(p, services),
      'resource.read': (p) => readResource(p, services),
      'events.follow': (p, ctx) =>
        this.streams.follow(ctx.peer, p, () => new HoldfastError('WORKSPACE_NOT_FOUND', `no workspace named "${p.workspace}"; registered: ${this.configStore.listWorkspaces().map((w) => w.name).join(', ') || '(none)'}`)),
      'events.unfollow': (p, ctx) => ({ stopped: this.streams.unfollow(ctx.peer, p.stream) }),
    };
  }

  /**
   * `restart-daemon` (DESIGN §4.5): drain (new requests answer DAEMON_DRAINING), tell clients,
   * let in-flight requests finish (bounded), say bye to guardians, checkpoint the DB, start the
   * successor (it binds once this one has released the lock and socket), exit. Guardians, PTYs,
   * running commands and output offsets are untouched.
   */
  private async restart(): Promise<{ successor_pid: number }> {
    if (this.draining) throw new HoldfastError('DAEMON_DRAINING', 'a restart is already under way', { retryable: true });
    this.draining = true;
    this.log.info('restart requested: draining');
    this.server.broadcast(ControlEvents.draining, { pid: process.pid });
    // Under systemd the unit restarts us (exit 75, RestartForceExitStatus=75); otherwise we start
    // the successor ourselves. Either way guardians are left running (KillMode=process).
    const supervised = process.env.HOLDFAST_SUPERVISED === 'systemd';
    const successor = supervised ? 0 : this.spawnSuccessor();
    setImmediate(() => void this.handOff(supervised ? 75 : 0));
    return { successor_pid: successor };
  }

  private spawnSuccessor(): number {
    mkdirSync(this.layout.logsDir, { recursive: true, mode: 0o700 });
    const fd = openSync(this.layout.daemonLog, 'a', 0o600);
    try {
      const entry = fileURLToPath(new URL('./main.js', import.meta.url));
      const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, entry, 'run', '--home', this.layout.home, '--takeover'], {
        detached: true,
        stdio: ['ignore', fd, fd],
        env: { ...process.env, HOLDFAST_HOME: this.layout.home },
      });
      child.unref();
      return child.pid ?? -1;
    } finally {
      closeSync(fd);
    }
  }

  private async handOff(code: number): Promise<void> {
    // Let in-flight requests (other than the restart itself) finish, bounded.
    const until = Date.now() + 3000;
    while (this.inflight > 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    await this.stop(false, code);
  }

  /**
   * Stops the daemon: guardians are left running (they outlive the daemon) unless
   * `killSessions`; the DB is checkpointed and closed; lock and socket are released.
   */
  async stop(killSessions: boolean, code: number): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.draining = true;
    this.operations?.stop();
    this.reaper?.stop();
    this.retention?.stop();
    this.streams?.stop();
    this.execution?.stop();
    this.disk?.stop();
    await this.files?.close();
    if (killSessions && this.manager) {
      await Promise.all(this.sessionsRepo.listLive().map((r) => this.manager.end(r.id, 'killed').catch(() => undefined)));
    }
    const closing = this.server?.close();
    this.server?.disconnectAll();
    await closing;
    await this.manager?.byeAll();
    if (this.db) {
      try {
        this.eventsRepo.append({ kind: 'daemon.stopped', data: { pid: process.pid } }); // flushes queued events first
        checkpoint(this.db);
        this.db.close();
      } catch (err) {
        this.log.warn('closing the database failed', { error: (err as Error).message });
      }
    }
    await this.releaseLock?.();
    this.log.info('holdfastd stopped', { pid: process.pid });
    this.exitResolve(code);
  }
}
