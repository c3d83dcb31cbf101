import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GEvents,
  OutputLimits,
  processStartTime,
  ProtocolVersions,
  SegmentLog,
  SessionDefaults,
  type ExitReason,
  type ExitRecord,
  type GuardianSpec,
  type GuardianStatus,
  type ReadParams,
} from '@holdfast/shared/protocol';
import { GUARDIAN_BUILD } from './build-id.js';
import { Clock } from './clock.js';
import { CommandRunner } from './command-runner.js';
import { ServerTimings } from './constants.js';
import { DesktopHost } from './desktop-host.js';
import { DisplayEnv } from './display-env.js';
import { writeExitRecord } from './exit-record.js';
import { GuardianServer } from './guardian-server.js';
import { log } from './log.js';
import { writeManifest } from './manifest.js';
import { OrphanTimer } from './orphan-timer.js';
import { OutputReader, type SourceState } from './output-reader.js';
import { procLink } from '@holdfast/shared/protocol';
import { findShell, PtyHost, type ShellExit } from './pty-host.js';
import { routeRequest } from './request-router.js';
import { ScreenModel } from './screen-model.js';
import { sandboxEnv, sandboxLaunch } from './sandbox-launch.js';
import { writeTiocstiFilter } from './seccomp.js';
import { writeIntegrationFiles, type IntegrationFiles } from './shell-integration.js';
import { TaskRunner } from './task-runner.js';
import { TerminalSanity } from './terminal-sanity.js';
import { UpstreamHost } from './upstream/upstream-host.js';
import { SecretPages } from './secrets/secret-page.js';
import { SecretStore } from './secrets/secret-store.js';

/**
 * One guardian = one remote session (DESIGN §1, §5): wires the PTY shell, foreground commands,
 * tasks, output logs, screen model, socket server, manifest and orphan timer, and owns the ways
 * a session ends (DESIGN §4.4):
 *
 * - `shutdown(reason)` (g.shutdown, SIGTERM/SIGINT → `signal`, orphan timer → `orphan`): one kill
 *   escalation SIGHUP → SIGTERM → SIGKILL over the shell's terminal session and every task's
 *   process group and session (every process whose session id or group id matches, so orphaned
 *   grandchildren die too), then `exit.json`, then the answer, then the socket is unlinked and
 *   the process exits 0.
 * - The shell exits by itself: what is left of its session and the tasks is killed, `exit.json`
 *   (`shell_exit`, the shell's code) is written, `g.exit` goes to every connection, and the
 *   guardian exits once they disconnect or after {@link ServerTimings.EXIT_LINGER_MS} (at once
 *   with no connection). The manifest is left for the daemon to clean up.
 */
export class Session {
  readonly clock = new Clock();
  private readonly nonce = randomBytes(8).toString('hex');
  private readonly ptyLog: SegmentLog;
  readonly host: PtyHost;
  readonly screen: ScreenModel;
  readonly commands: CommandRunner;
  readonly tasks: TaskRunner;
  /** Upstream MCP servers of the session (issue 13). */
  readonly upstream: UpstreamHost;
  readonly reader: OutputReader;
  readonly server: GuardianServer;
  /** Secrets given to the session, in memory only, and their loopback pages (issue 12). */
  readonly secrets = new SecretStore();
  readonly secretPages = new SecretPages(this.secrets);
  readonly desktop: DesktopHost;
  private readonly orphan: OrphanTimer;
  private manifestWritten = false;
  private readonly shellDir: string;
  /** When the shell last finished printing its prompt (it waits for a line from then on), epoch ms. */
  private lastPromptAt = 0;
  /** The activity clock's PTY time when that prompt was complete. */
  private activityAtPrompt = 0;
  private ending: Promise<ExitRecord> | null = null;
  private exiting = false;

  constructor(
    readonly spec: GuardianSpec,
    private readonly bundlePath: string,
  ) {
    mkdirSync(spec.sessionDir, { recursive: true, mode: 0o700 });
    const writeFiles = (): IntegrationFiles => writeIntegrationFiles(join(spec.sessionDir, 'shell'), this.nonce);
    const files = writeFiles();
    this.ptyLog = new SegmentLog(join(spec.sessionDir, 'pty'), OutputLimits.PTY_LOG_SEGMENT_BYTES, OutputLimits.PTY_LOG_SEGMENTS, (err) =>
      log(`cannot write the PTY log (${err.code ?? err.message}); output is dropped until space is back`),
    );
    const baseEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) baseEnv[k] = v;
    Object.assign(baseEnv, spec.env, { PAGER: 'cat', GIT_PAGER: 'cat' }, sandboxEnv(spec.sandbox));
    // The sandbox also blocks TIOCSTI (seccomp, docs/sandbox.md): the filter file is the guardian's own.
    const seccomp = spec.sandbox ? writeTiocstiFilter(spec.sessionDir) : null;
    const sandbox = spec.sandbox && seccomp ? { ...spec.sandbox, seccomp } : spec.sandbox;
    const wrap = sandbox ? (file: string, args: string[], cwd: string) => sandboxLaunch(sandbox, cwd, file, args) : undefined;
    const shellEnv = { ...baseEnv, TERM: 'xterm-256color' };
    const shellPath = spec.shell ?? findShell(baseEnv.PATH, baseEnv.SHELL);

    const cols = spec.cols > 0 ? Math.min(spec.cols, 1000) : SessionDefaults.PTY_COLS;
    const rows = spec.rows > 0 ? Math.min(spec.rows, 1000) : SessionDefaults.PTY_ROWS;
    this.host = new PtyHost({
      cwd: spec.cwd,
      cols,
      rows,
      env: shellEnv,
      shellPath,
      nonce: this.nonce,
      files,
      writeFiles,
      log: this.ptyLog,
      clock: this.clock,
      redaction: this.secrets.patterns,
      ...(spec.rcTimeoutMs !== undefined ? { rcTimeoutMs: spec.rcTimeoutMs } : {}),
      ...(wrap ? { wrap } : {}),
    });
    this.shellDir = files.dir;
    this.screen = new ScreenModel(this.ptyLog, cols, rows);
    this.commands = new CommandRunner({
      host: this.host,
      log: this.ptyLog,
      screen: this.screen,
      clock: this.clock,
      onDone: (rec) => this.server.broadcast(GEvents.done, rec),
      onAwaiting: (rec) => this.server.broadcast(GEvents.awaiting, rec),
      spillDir: join(spec.sessionDir, 'shell', 'cmd'),
      secretValues: (names) => this.secrets.buffers(names),
      sanity: new TerminalSanity(files.dir),
    });
    this.tasks = new TaskRunner({
      sessionDir: spec.sessionDir,
      cwd: spec.cwd,
      env: baseEnv,
      clock: this.clock,
      onDone: (rec) => this.server.broadcast(GEvents.done, rec),
      onOutput: (id) => {
        this.reader.notify(`task:${id}:stdout`);
        this.reader.notify(`task:${id}:stderr`);
      },
      redaction: this.secrets.patterns,
      secretEnv: (names) => this.secrets.values(names),
      ...(wrap ? { wrap } : {}),
    });
    this.upstream = new UpstreamHost({ sessionDir: spec.sessionDir, baseEnv, cwd: spec.cwd, ...(sandbox ? { sandbox } : {}) });
    this.reader = new OutputReader({ sessionDir: spec.sessionDir, source: (src) => this.source(src) });
    const displayEnv = new DisplayEnv(files.envFile, baseEnv, () => this.commands.refreshPrompt());
    this.desktop = new DesktopHost({ sessionDir: spec.sessionDir, env: { ...baseEnv }, onDisplayEnv: (env) => displayEnv.apply(env) });
    this.server = new GuardianServer({
      socketPath: spec.socketPath,
      build: GUARDIAN_BUILD,
      handler: (m, p, ctx) => routeRequest(this, m, p, ctx),
      onDaemonCount: (n) => this.orphan.update(n),
    });
    this.orphan = new OrphanTimer(spec.orphanTimeoutS, () => {
      log(`no daemon connection for ${spec.orphanTimeoutS} s: ending (orphan)`);
      void this.endAndExit('orphan');
    });

    this.host.on('output', () => {
      this.screen.noteOutput();
      this.reader.notify('pty');
    });
    this.host.on('spawned', () => {
      if (this.manifestWritten) this.writeManifest();
    });
    this.host.on('marker', (m) => {
      if (m.kind === 'B') {
        this.lastPromptAt = Date.now();
        this.activityAtPrompt = this.clock.lastPtyActivityAt;
      }
    });
    this.host.on('exit', (e) => {
      this.reader.notify('pty');
      if (e.expected) return;
      const logout = this.idleLogout(e);
      if (logout) {
        log(logout);
        // bash's "auto-logout" message is not activity: an idle session must still age (TTL).
        this.clock.lastPtyActivityAt = this.activityAtPrompt;
        this.host.restart({ reason: 'idle_logout', at: Date.now(), detail: logout });
        return;
      }
      void this.onShellExit(e);
    });
  }

  /** Listens, starts the shell, writes the manifest, arms the orphan timer. */
  async start(): Promise<void> {
    await this.server.listen();
    this.host.start();
    this.writeManifest();
    this.manifestWritten = true;
    this.orphan.update(this.server.daemonConnections);
    log(`guardian ${this.spec.gid} ready on ${this.spec.socketPath} (build ${GUARDIAN_BUILD})`);
  }

  /** True once the session is ending (no new work accepted). */
  get isEnding(): boolean {
    return this.ending !== null;
  }

  /** `g.status` (DESIGN §4.3, §5). */
  status(): GuardianStatus {
    const h = this.host;
    const shell: GuardianStatus['shell'] = { pid: h.pid, alive: h.alive, generation: h.generation, ready: h.ready };
    const last = h.lastExit;
    if (!h.alive && last) {
      shell.exitCode = last.exitCode;
      shell.signal = last.signal;
    }
    if (h.rcFallback) shell.rcFallback = true;
    if (h.rcSkipped) shell.rcSkipped = { ...h.rcSkipped };
    if (h.restarted) shell.restarted = { ...h.restarted };
    return {
      gid: this.spec.gid,
      pid: process.pid,
      startTime: processStartTime(process.pid),
      build: GUARDIAN_BUILD,
      proto: ProtocolVersions.GUARDIAN,
      shell,
      cwd: h.alive ? procLink(h.pid, 'cwd') : null,
      clock: this.clock.snapshot(this.commands.foreground !== null || this.tasks.anyRunning || this.upstream.busy),
      pty: { start: this.ptyLog.start, end: this.ptyLog.end },
      foreground: this.commands.foreground,
      tasks: this.tasks.list(),
      daemonConnections: this.server.daemonConnections,
      ...(this.spec.sandbox ? { sandbox: { mode: this.spec.sandbox.mode, network: this.spec.sandbox.network } } : {}),
      desktopDriver: this.desktop.pid !== null ? { pid: this.desktop.pid } : null,
    };
  }

  /**
   * Resolves once the shell has shown its first prompt (after any fallback), the session ends,
   * `until` (epoch ms) passes or `signal` aborts — whichever comes first.
   */
  waitShellReady(until: number, signal?: AbortSignal): Promise<void> {
    if (this.host.ready || this.ending) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.host.off('ready', done);
        this.host.off('exit', done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, until - Date.now()));
      this.host.on('ready', done);
      this.host.on('exit', done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** `g.reset_shell`: a fresh shell (generation + 1); the PTY log continues; tasks untouched. */
  async resetShell(): Promise<GuardianStatus> {
    this.clock.instruction(false);
    await this.host.reset();
    return this.status();
  }

  /** `g.resize`: the PTY and the screen model (at the current offset). */
  resize(cols: number, rows: number): void {
    this.host.resize(cols, rows);
    this.screen.resize(cols, rows);
  }

  /**
   * Ends the session (see the class comment) and resolves with the exit record once it is on
   * disk. Idempotent: later calls get the same record.
   */
  shutdown(reason: ExitReason): Promise<ExitRecord> {
    if (this.ending) return this.ending;
    log(`ending: ${reason}`);
    this.ending = (async () => {
      this.orphan.stop();
      await this.desktop.stop();
      const groups = [...this.tasks.allGroups(), ...this.upstream.groups()];
      const closing = this.upstream.closeAll();
      const shellExit = await this.host.endSession({ final: true, also: { sessions: groups, groups } });
      await closing;
      return this.finish(reason, shellExit, null);
    })();
    return this.ending;
  }

  /** Ends (see {@link shutdown}) and exits the process after the answer went out. */
  async endAndExit(reason: ExitReason): Promise<void> {
    await this.shutdown(reason);
    await this.exitProcess();
  }

  /** Closes the socket (flushing answers already written), the logs, and exits 0. */
  async exitProcess(): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    // Let answers queued in this tick reach their sockets before the FIN.
    await new Promise((r) => setImmediate(r));
    await this.server.close();
    this.ptyLog.close();
    this.tasks.closeLogs();
    log('exit 0');
    process.exit(0);
  }

  /**
   * Did the shell log itself out for being idle (TMOUT that could not be unset, issue 9 item 3)?
   * Then the sentence for the agent, else null. The shell records `TMOUT` at every prompt
   * (prompt-hygiene.ts); an exit at the prompt, with no command running, at least that long after
   * the prompt appeared is bash's auto-logout — whatever language it printed its message in.
   */
  private idleLogout(e: ShellExit): string | null {
    if (this.ending || this.commands.foreground !== null || e.signal !== null) return null;
    let tmout: number;
    let readonly: boolean;
    try {
      const [value, flag] = readFileSync(join(this.shellDir, 'tmout'), 'utf8').trim().split(/\s+/);
      tmout = Number.parseInt(value ?? '', 10);
      readonly = flag === 'readonly';
    } catch {
      return null;
    }
    if (!Number.isFinite(tmout) || tmout <= 0) return null;
    if (this.lastPromptAt === 0 || Date.now() - this.lastPromptAt + 500 < tmout * 1000) return null;
    return (
      `the shell logged itself out after ${tmout} s without input (TMOUT=${tmout}${readonly ? ' is read-only here, set by the start-up files, so holdfast cannot unset it' : ' was set by a command'}); ` +
      'holdfast started a new shell: the working directory, variables and shell jobs of the old one are gone, background tasks kept running. ' +
      (readonly ? 'cd and export again if you need them; to avoid it, ask the machine\'s administrator to exempt this account from TMOUT' : 'cd and export again if you need them, and do not set TMOUT')
    );
  }

  private async onShellExit(e: ShellExit): Promise<void> {
    if (this.ending) return;
    log(`the shell exited by itself (code ${e.exitCode}, signal ${e.signal}): ending the session`);
    this.ending = (async () => {
      this.orphan.stop();
      await this.desktop.stop();
      const groups = [...this.tasks.allGroups(), ...this.upstream.groups()];
      const closing = this.upstream.closeAll();
      await this.host.endSession({ final: true, also: { sessions: groups, groups } });
      await closing;
      return this.finish('shell_exit', e, e.exitCode);
    })();
    const rec = await this.ending;
    this.server.broadcast(GEvents.exit, rec);
    if (this.server.connectionCount > 0) await this.server.drained(ServerTimings.EXIT_LINGER_MS);
    await this.exitProcess();
  }

  private async finish(reason: ExitReason, shellExit: ShellExit | null, code: number | null): Promise<ExitRecord> {
    await this.tasks.settle(1500);
    this.secretPages.close();
    this.secrets.clear();
    this.commands.close();
    this.reader.notifyAll();
    const tasks: ExitRecord['finalOffsets']['tasks'] = {};
    for (const t of this.tasks.list()) tasks[t.id] = { stdout: t.stdout.end, stderr: t.stderr.end, exitCode: t.exitCode ?? null };
    const rec = writeExitRecord(this.spec.sessionDir, {
      gid: this.spec.gid,
      reason,
      code,
      signal: shellExit?.signal ?? null,
      finalOffsets: { pty: this.ptyLog.end, tasks },
    });
    log(`exit.json written: ${reason}, code ${code}, pty ${this.ptyLog.end}`);
    return rec;
  }

  private writeManifest(): void {
    try {
      writeManifest(this.spec.manifestPath, {
        gid: this.spec.gid,
        shellPid: this.host.pid,
        socketPath: this.spec.socketPath,
        build: GUARDIAN_BUILD,
        bundlePath: this.bundlePath,
        createdAt: this.clock.createdAt,
        daemonBuild: this.spec.daemonBuild,
      });
    } catch (err) {
      log('writing the manifest failed', err);
    }
  }

  private source(src: ReadParams['src']): SourceState | null {
    if (src === 'pty') {
      const last = this.host.lastExit;
      const exited = this.ending !== null && !this.host.alive;
      return { log: this.ptyLog, folder: null, exited, exitCode: exited ? (last?.exitCode ?? null) : null };
    }
    const m = /^task:([A-Za-z0-9_]+):(stdout|stderr)$/.exec(src);
    if (!m) return null;
    const log = this.tasks.stream(m[1]!, m[2] as 'stdout' | 'stderr');
    const st = this.tasks.exitState(m[1]!);
    if (!log || !st) return null;
    return { log, folder: null, exited: st.exited, exitCode: st.exitCode };
  }
}
