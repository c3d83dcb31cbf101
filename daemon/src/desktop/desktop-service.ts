import type { ControlResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { isId, newId } from '@holdfast/shared/ids';
import {
  D,
  DesktopLimits,
  type ActionParams,
  type ActionResult,
  type BackendSpec,
  type CaptureResult,
  type ConnectParams,
  type DesktopSessionView,
  type PanelRequest,
  type Rect,
  type ScreenshotResult,
  type ViewView,
} from '@holdfast/shared/protocol';
import type { ConfigStore } from '../config-store.js';
import type { Logger } from '../log.js';
import type { SessionManager } from '../sessions/manager.js';
import type { DesktopRepo, DesktopSessionRow, ViewRow } from '../store/desktop-repo.js';
import type { EventsRepo } from '../store/events-repo.js';
import { requireSessionAccess } from '../sessions/access.js';
import type { SessionRow } from '../store/sessions-repo.js';
import { deviceLockKey, virtualLockKey, type DeviceBook } from './device-book.js';

/** Deadline of a driver call that does not wait for anything in particular, ms. */
const DRIVER_CALL_MS = 30_000;
/** Extra time on top of a driver-side wait or connect, ms. */
const DRIVER_SLACK_MS = 5000;

/** What `desktop_connect` answers: connected, or waiting for the person (a device without auto-connect). */
export type ConnectOutcome = { kind: 'connected'; session: DesktopSessionView } | { kind: 'waiting'; view: ViewView; pairing_command: string };

/** A `desktop_get_session(view_id)` answer: the view, and its desktop session once connected. */
export interface ViewOutcome {
  view: ViewView;
  session: DesktopSessionView | null;
}

/** The command a person runs to answer a view in their terminal (it also prints a one-time panel link, issue 16). */
export function pairingCommand(viewId: string): string {
  return `holdfast desktop pair ${viewId}`;
}

/**
 * A connection the person chose in the panel (issue 16) rather than one the book resolves: its
 * label (the device name the tools show), lock key, backend (with the password typed in, kept in
 * memory only) and grant.
 */
export interface ResolvedTarget {
  lockKey: string;
  backend: BackendSpec;
  authorization: ConnectParams['authorization'];
}

/**
 * Desktop sessions as the daemon sees them (issue 15, DESIGN §5.1): the policy around the
 * session's desktop driver, which does the work behind `g.desktop`.
 *
 * - Who may connect what: aliases from the device book (`DEVICE_NOT_FOUND` otherwise) and
 *   `virtual`; a device without auto-connect needs the person (a view and its pairing command).
 * - The device lock: one open `desktop_sessions` row per lock key (a unique index). A holder whose
 *   session or driver connection is gone is released; a live one in another session is
 *   `DEVICE_BUSY`. Connecting what this session already holds answers the same desktop session.
 * - The person's pause lives in `desktop_pauses` (it outlives reconnects) and in the driver.
 * - Ownership: a `desktop_session_id` or `view_id` of another session is `DESKTOP_NOT_FOUND`.
 * - Rows end when the agent disconnects, the driver reports the session closed or unknown, or
 *   the remote session ends ({@link onSessionEnded}; {@link reconcile} at start-up).
 */
export class DesktopService {
  private readonly inflight = new Map<string, { sessionId: string; done: Promise<ConnectOutcome> }>();

  constructor(
    private readonly repo: DesktopRepo,
    readonly book: DeviceBook,
    private readonly sessions: SessionManager,
    private readonly config: ConfigStore,
    private readonly events: EventsRepo,
    private readonly log: Logger,
  ) {}

  /**
   * How views are presented (issue 16): set by the panel wiring ({@link DesktopPanel}); without
   * it, views carry no panel (issue 15 behaviour).
   */
  panelFor: ((mode: PanelRequest['mode']) => PanelRequest) | null = null;

  // ---- lifecycle -----------------------------------------------------------------------------

  /** Ends the desktop rows of sessions that are no longer live (daemon start). */
  reconcile(): number {
    let n = 0;
    for (const row of this.repo.allOpen()) {
      const s = this.sessionRow(row.session_id);
      if (!s || (s.state !== 'running' && s.state !== 'starting')) n += this.repo.endSession(row.id, 'session_ended') ? 1 : 0;
    }
    return n;
  }

  /** The remote session ended: its desktop sessions (and their device locks) end too. */
  onSessionEnded(sessionId: string): void {
    for (const row of this.repo.openOfSession(sessionId)) this.end(row, 'session_ended');
  }

  // ---- the agent's tools ---------------------------------------------------------------------

  /** `desktop_list_devices`. */
  async listDevices(sessionId: string, principal: string): Promise<Record<string, unknown>> {
    this.requireLive(sessionId, principal);
    const devices = this.book.list().map((d) => ({
      alias: d.alias,
      host: d.host,
      port: d.port,
      authorization: d.authorization,
      auto_connect: d.auto_connect,
      paused: d.paused,
      state: d.desktop_session_id === null ? 'free' : d.remote_session_id === sessionId ? 'connected_here' : 'busy',
      ...(d.remote_session_id === sessionId ? { desktop_session_id: d.desktop_session_id } : {}),
    }));
    const v = this.repo.openByLock(virtualLockKey(sessionId));
    const cfg = this.config.config.desktop.virtual;
    return {
      devices,
      virtual: { alias: 'virtual', size: { width: cfg.width, height: cfg.height }, state: v ? 'connected_here' : 'free', ...(v ? { desktop_session_id: v.id } : {}) },
    };
  }

  /**
   * `desktop_connect` (and a person's pairing, `byPerson`).
   * @throws HoldfastError `DEVICE_NOT_FOUND`, `DEVICE_BUSY`, `KEYRING_UNAVAILABLE`,
   *   `CREDENTIAL_MISSING`, `DESKTOP_UNAVAILABLE`, `DESKTOP_AUTH_FAILED`.
   */
  async connect(sessionId: string, principal: string | null, alias: string, byPerson = false, panelMode?: PanelRequest['mode'], resolved?: ResolvedTarget): Promise<ConnectOutcome> {
    const session = this.requireLive(sessionId, principal);
    const virtual = alias === 'virtual';
    const device = virtual || resolved ? null : this.book.require(alias);
    if (device && device.auto_connect !== 1 && !byPerson) {
      const view = await this.openView(sessionId, session.principal, alias, panelMode);
      return { kind: 'waiting', ...view };
    }
    const lockKey = resolved?.lockKey ?? (virtual ? virtualLockKey(sessionId) : deviceLockKey(alias));
    const pending = this.inflight.get(lockKey);
    if (pending) {
      if (pending.sessionId === sessionId) return pending.done;
      throw this.busy(alias, pending.sessionId);
    }
    const done = this.connectLocked(sessionId, session.principal, alias, lockKey, resolved).finally(() => this.inflight.delete(lockKey));
    this.inflight.set(lockKey, { sessionId, done });
    return done;
  }

  /**
   * `desktop_open`: a view the person answers — in the panel (issue 16: presented as `panelMode`
   * says) or with `holdfast desktop pair`.
   */
  async openView(sessionId: string, principal: string | null, alias?: string, panelMode?: PanelRequest['mode']): Promise<{ view: ViewView; pairing_command: string }> {
    const session = this.requireLive(sessionId, principal);
    const panel = panelMode && this.panelFor ? this.panelFor(panelMode) : undefined;
    const view = await this.driver<ViewView>(sessionId, D.openView, { device: alias ?? null, ...(panel ? { panel } : {}) }, panel?.mode === 'browser' ? DRIVER_CALL_MS + DRIVER_SLACK_MS : DRIVER_CALL_MS);
    this.repo.insertView({ id: view.view_id, session_id: sessionId, principal: session.principal, device: alias ?? null, created_at: view.created_at }, Date.now() - DesktopLimits.VIEW_TTL_MS * 4);
    this.events.append({ session_id: sessionId, workspace: session.workspace, kind: 'desktop.view_opened', data: { view_id: view.view_id, device: alias ?? null } });
    return { view, pairing_command: pairingCommand(view.view_id) };
  }

  /** `desktop_get_session(desktop_session_id)`: the driver's view, or `closed` from the row. */
  async getSession(sessionId: string, principal: string, id: string): Promise<DesktopSessionView> {
    const row = this.requireRow(sessionId, principal, id);
    if (row.ended_at !== null) return closedView(row);
    return this.liveView(row);
  }

  /** `desktop_get_session(view_id)`: waits up to `waitMs` while the person has not answered. */
  async waitView(sessionId: string, principal: string, viewId: string, waitMs: number): Promise<ViewOutcome> {
    this.requireLive(sessionId, principal);
    const idx = this.repo.view(viewId);
    if (!idx || idx.session_id !== sessionId) throw notFound(`no desktop view ${viewId} in session ${sessionId}`);
    const view = await this.driver<ViewView>(sessionId, D.waitView, { view_id: viewId, wait_ms: waitMs }, waitMs + DRIVER_SLACK_MS);
    const session = view.desktop_session_id ? await this.getSession(sessionId, principal, view.desktop_session_id).catch(() => null) : null;
    return { view, session };
  }

  /** `desktop_screenshot`. */
  async screenshot(sessionId: string, principal: string, id: string, p: { max_long_edge?: number | undefined; rect?: Rect | undefined }): Promise<ScreenshotResult> {
    const row = this.requireOpen(sessionId, principal, id);
    return this.onDriverSession(row, () =>
      this.driver<ScreenshotResult>(sessionId, D.screenshot, { desktop_session_id: id, ...(p.max_long_edge !== undefined ? { max_long_edge: p.max_long_edge } : {}), ...(p.rect ? { rect: p.rect } : {}) }),
    );
  }

  /** `desktop_action` (the deadline covers a long `type_text`). */
  async action(sessionId: string, principal: string, p: ActionParams): Promise<ActionResult> {
    const row = this.requireOpen(sessionId, principal, p.desktop_session_id);
    const typing = [...(p.text ?? '')].length * (this.config.config.desktop.type_interval_ms + 2);
    return this.onDriverSession(row, () => this.driver<ActionResult>(sessionId, D.action, p, DesktopLimits.ACTION_SEND_TIMEOUT_MS + typing + DRIVER_CALL_MS));
  }

  /** `desktop_set_control`. */
  async setControl(sessionId: string, principal: string, id: string, enabled: boolean): Promise<DesktopSessionView> {
    const row = this.requireOpen(sessionId, principal, id);
    return this.onDriverSession(row, () => this.driver<DesktopSessionView>(sessionId, D.setControl, { desktop_session_id: id, enabled }));
  }

  /** `desktop_select_display`. */
  async selectDisplay(sessionId: string, principal: string, id: string, display: number): Promise<DesktopSessionView> {
    const row = this.requireOpen(sessionId, principal, id);
    return this.onDriverSession(row, () => this.driver<DesktopSessionView>(sessionId, D.selectDisplay, { desktop_session_id: id, display }));
  }

  /** `desktop_disconnect`: releases held input, the connection and the device lock. Idempotent. */
  async disconnect(sessionId: string, principal: string, id: string): Promise<DesktopSessionView> {
    const row = this.requireRow(sessionId, principal, id);
    if (row.ended_at !== null) return closedView(row);
    let view: DesktopSessionView | null = null;
    try {
      view = await this.driver<DesktopSessionView>(sessionId, D.disconnect, { desktop_session_id: id, reason: 'disconnected' });
    } catch (err) {
      if (!(err instanceof HoldfastError && err.code === 'DESKTOP_NOT_FOUND')) throw err;
    }
    this.end(row, 'disconnected');
    return view ?? closedView(this.repo.session(id)!);
  }

  /**
   * `screenshot_capture` of a display the person allowed in `desktop.capture_displays`.
   * @throws HoldfastError `POLICY_DENIED` for any other display.
   */
  async captureDisplay(sessionId: string, principal: string, display: string, purpose: string, p: { max_long_edge?: number | undefined; rect?: Rect | undefined }): Promise<CaptureResult> {
    const session = this.requireLive(sessionId, principal);
    const allowed = this.config.config.desktop.capture_displays;
    if (!allowed.includes(display)) {
      throw new HoldfastError('POLICY_DENIED', `display ${display} may not be captured; the person allows displays in config.yaml desktop.capture_displays (now: ${allowed.join(', ') || 'none'})`, {
        retryable: false,
        details: { allowed },
      });
    }
    const r = await this.driver<CaptureResult>(sessionId, D.capture, { display, ...(p.max_long_edge !== undefined ? { max_long_edge: p.max_long_edge } : {}), ...(p.rect ? { rect: p.rect } : {}) });
    this.events.append({ session_id: sessionId, workspace: session.workspace, kind: 'desktop.capture', data: { display, purpose } });
    return r;
  }

  /** Records a purpose-bound capture of a desktop session (the image itself is never stored). */
  noteCapture(sessionId: string, id: string, purpose: string): void {
    this.events.append({ session_id: sessionId, kind: 'desktop.capture', data: { desktop_session_id: id, purpose } });
  }

  // ---- the person's commands (CLI) -----------------------------------------------------------

  /** `holdfast desktop list`: open desktop sessions. */
  async list(): Promise<ControlResult<'desktop.list'>> {
    const out: ControlResult<'desktop.list'>['sessions'] = [];
    for (const row of this.repo.allOpen()) {
      let state = 'unknown';
      try {
        state = (await this.liveView(row)).state;
      } catch {
        // gone meanwhile
      }
      const fresh = this.repo.session(row.id)!;
      if (fresh.ended_at !== null) continue;
      out.push({ desktop_session_id: row.id, remote_session_id: row.session_id, principal: row.principal, device: row.device, paused: this.repo.isPaused(row.lock_key), created_at: row.created_at, state });
    }
    return { sessions: out };
  }

  /**
   * `holdfast desktop pause|resume <id>` (`ds_…` or a device alias): the person's lock. It is
   * recorded for the device (so a reconnect does not lift it) and applied to the live connection.
   * @throws HoldfastError `DESKTOP_NOT_FOUND` / `DEVICE_NOT_FOUND` for an unknown id.
   */
  async setPaused(id: string, paused: boolean): Promise<ControlResult<'desktop.pause'>> {
    const { lockKey, row } = this.resolveTarget(id);
    if (paused) this.repo.pause(lockKey);
    else this.repo.resume(lockKey);
    const open = row && row.ended_at === null ? row : this.repo.openByLock(lockKey);
    if (open) {
      try {
        await this.driver<DesktopSessionView>(open.session_id, paused ? D.pause : D.resume, { desktop_session_id: open.id });
      } catch (err) {
        this.log.warn('desktop pause/resume did not reach the driver', { desktop_session_id: open.id, error: (err as Error).message });
      }
    }
    this.events.append({ session_id: open?.session_id ?? null, kind: paused ? 'desktop.paused' : 'desktop.resumed', data: { target: lockKey, desktop_session_id: open?.id ?? null } });
    return { target: lockKey, desktop_session_id: open?.id ?? null, paused };
  }

  /**
   * `holdfast desktop disconnect <id>` (`ds_…` or a device alias): the person ends an agent's
   * desktop session; the agent then sees it `closed` (`closed_by_person`), never reconnected.
   * @throws HoldfastError `DESKTOP_NOT_FOUND` when nothing open matches.
   */
  async closeByPerson(id: string): Promise<ControlResult<'desktop.disconnect'>> {
    const { lockKey, row } = this.resolveTarget(id);
    const open = row && row.ended_at === null ? row : this.repo.openByLock(lockKey);
    if (!open) throw notFound(`no open desktop session for ${id}; see \`holdfast desktop list\``);
    await this.driver(open.session_id, D.disconnect, { desktop_session_id: open.id, reason: 'closed_by_person' }).catch((err: Error) => {
      this.log.warn('desktop disconnect did not reach the driver', { desktop_session_id: open.id, error: err.message });
    });
    this.end(open, 'closed_by_person');
    return { desktop_session_id: open.id, remote_session_id: open.session_id, device: open.device, closed: true };
  }

  /**
   * The index row of a view (its session and principal), optionally checking that it belongs to
   * `sessionId`. @throws HoldfastError `DESKTOP_NOT_FOUND`.
   */
  viewRow(viewId: string, sessionId?: string): ViewRow {
    const idx = this.repo.view(viewId);
    if (!idx || (sessionId !== undefined && idx.session_id !== sessionId)) {
      throw notFound(sessionId !== undefined ? `no desktop view ${viewId} in session ${sessionId}` : `no desktop view ${viewId} (views are removed after ${DesktopLimits.VIEW_TTL_MS / 60_000} min unused)`);
    }
    return idx;
  }

  /** `holdfast desktop pair <view_id>` (first step): what the view asks for. */
  async describeView(viewId: string): Promise<ControlResult<'desktop.view'>> {
    const idx = this.viewRow(viewId);
    const session = this.sessionRow(idx.session_id);
    if (!session) throw notFound(`the session of view ${viewId} is gone`);
    const view = await this.driver<ViewView>(idx.session_id, D.waitView, { view_id: viewId, wait_ms: 0 });
    return { view_id: viewId, remote_session_id: idx.session_id, principal: idx.principal, workspace: session.workspace, device: idx.device, state: view.state, devices: this.book.list() };
  }

  /**
   * `holdfast desktop pair <view_id> [--device D] [--close]`: the person connects a desktop for
   * the view (or declines it); `desktop_get_session(view_id)` then answers at once.
   */
  async pair(viewId: string, device: string | undefined, close: boolean): Promise<ControlResult<'desktop.pair'>> {
    const idx = this.repo.view(viewId);
    if (!idx) throw notFound(`no desktop view ${viewId}`);
    if (close) {
      const v = await this.driver<ViewView>(idx.session_id, D.closeView, { view_id: viewId });
      return { view_id: viewId, state: v.state, desktop_session_id: null, remote_session_id: idx.session_id, device: idx.device };
    }
    const alias = device ?? idx.device;
    if (!alias) throw new HoldfastError('BAD_REQUEST', 'the agent named no device: pass --device <alias> (or virtual)', { retryable: false });
    const out = await this.connect(idx.session_id, null, alias, true);
    if (out.kind !== 'connected') throw new HoldfastError('INTERNAL', 'pairing did not connect');
    const v = await this.driver<ViewView>(idx.session_id, D.bindView, { view_id: viewId, desktop_session_id: out.session.desktop_session_id });
    return { view_id: viewId, state: v.state, desktop_session_id: out.session.desktop_session_id, remote_session_id: idx.session_id, device: alias };
  }

  /** `holdfast desktop device remove`: disconnects a live connection first. */
  async removeDevice(alias: string): Promise<ControlResult<'desktop.device_remove'>> {
    const holder = this.repo.openByLock(deviceLockKey(alias));
    if (holder) {
      await this.driver(holder.session_id, D.disconnect, { desktop_session_id: holder.id, reason: 'closed_by_person' }).catch(() => undefined);
      this.end(holder, 'closed_by_person');
    }
    const r = await this.book.remove(alias);
    this.repo.resume(deviceLockKey(alias));
    return { removed: r.removed, disconnected: holder?.id ?? null, keyring: r.keyring };
  }

  // ---- internals -----------------------------------------------------------------------------

  private async connectLocked(sessionId: string, principal: string, alias: string, lockKey: string, resolved?: ResolvedTarget): Promise<ConnectOutcome> {
    const holder = this.repo.openByLock(lockKey);
    if (holder) {
      const alive = await this.holderAlive(holder);
      if (alive && holder.session_id === sessionId) return { kind: 'connected', session: alive };
      if (alive) throw this.busy(alias, holder.session_id);
      this.end(holder, 'lost');
    }
    const virtual = alias === 'virtual';
    let backend: BackendSpec;
    let authorization: ConnectParams['authorization'] = 'control';
    if (resolved) {
      backend = resolved.backend;
      authorization = resolved.authorization;
    } else if (virtual) {
      const v = this.config.config.desktop.virtual;
      backend = { kind: 'virtual', width: v.width, height: v.height, server: v.server, window_manager: v.window_manager };
    } else {
      const d = this.book.require(alias);
      const password = await this.book.password(d);
      backend = { kind: 'vnc', host: d.host, port: d.port, ...(password !== undefined ? { password } : {}) };
      authorization = d.authorization;
    }
    const id = newId('desktopSession');
    try {
      this.repo.insertSession({ id, session_id: sessionId, principal, device: alias, lock_key: lockKey, created_at: Date.now() });
    } catch (err) {
      if (/UNIQUE/.test((err as Error).message)) throw this.busy(alias, this.repo.openByLock(lockKey)?.session_id ?? 'another session');
      throw err;
    }
    const params: ConnectParams = {
      desktop_session_id: id,
      device: alias,
      backend,
      authorization,
      paused: this.repo.isPaused(lockKey),
      type_interval_ms: this.config.config.desktop.type_interval_ms,
    };
    try {
      const session = await this.driver<DesktopSessionView>(sessionId, D.connect, params, DesktopLimits.CONNECT_TIMEOUT_MS + DesktopLimits.VIRTUAL_START_MS + DRIVER_SLACK_MS);
      this.events.append({ session_id: sessionId, kind: 'desktop.connected', data: { desktop_session_id: id, device: alias, backend: backend.kind, x_display: session.x_display } });
      return { kind: 'connected', session };
    } catch (err) {
      this.repo.endSession(id, 'connect_failed');
      throw err;
    }
  }

  /** The holder's live view when its session and driver connection are still there, else null. */
  private async holderAlive(holder: DesktopSessionRow): Promise<DesktopSessionView | null> {
    const s = this.sessionRow(holder.session_id);
    if (!s || (s.state !== 'running' && s.state !== 'starting')) return null;
    try {
      const v = await this.driver<DesktopSessionView>(holder.session_id, D.session, { desktop_session_id: holder.id });
      return v.state === 'closed' ? null : v;
    } catch (err) {
      if (err instanceof HoldfastError && ['DESKTOP_NOT_FOUND', 'SESSION_EXITED', 'SESSION_NOT_FOUND'].includes(err.code)) return null;
      throw err;
    }
  }

  private async liveView(row: DesktopSessionRow): Promise<DesktopSessionView> {
    return this.onDriverSession(row, async () => {
      const v = await this.driver<DesktopSessionView>(row.session_id, D.session, { desktop_session_id: row.id });
      if (v.state === 'closed') this.end(row, v.closed_reason ?? 'closed');
      return v;
    });
  }

  /** Runs a driver call about `row`; a driver that no longer knows it ends the row. */
  private async onDriverSession<T>(row: DesktopSessionRow, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const reason = err instanceof HoldfastError && err.code === 'DESKTOP_NOT_FOUND' ? err.details?.reason : undefined;
      if (reason === 'unknown') {
        this.end(row, 'lost');
        throw new HoldfastError('DESKTOP_NOT_FOUND', `desktop session ${row.id} is gone (the session's desktop driver restarted); connect again with desktop_connect`, { retryable: false });
      }
      if (reason === 'closed') this.end(row, String(err instanceof HoldfastError ? (err.details?.closed_reason ?? 'closed') : 'closed'));
      throw err;
    }
  }

  /** Calls the session's desktop driver (through its guardian). */
  async driver<R>(sessionId: string, m: string, p: unknown, deadlineMs = DRIVER_CALL_MS): Promise<R> {
    const link = await this.sessions.ensureLink(sessionId);
    return link.desktop<R>(m, p, deadlineMs);
  }

  private end(row: DesktopSessionRow, reason: string): void {
    if (this.repo.endSession(row.id, reason)) this.events.append({ session_id: row.session_id, kind: 'desktop.disconnected', data: { desktop_session_id: row.id, device: row.device, reason } });
  }

  private busy(alias: string, holderSession: string): HoldfastError {
    return new HoldfastError('DEVICE_BUSY', `device ${alias} is connected by another session (${holderSession}); one agent connection per device — that session must disconnect first`, {
      retryable: true,
      details: { device: alias },
    });
  }

  private sessionRow(id: string) {
    try {
      return this.sessions.requireExisting(id);
    } catch {
      return null;
    }
  }

  /**
   * The session row, which must be live: any session for the person (`principal` null, the ops
   * CLI), else one on which the principal holds at least `editor` (issue 14: driving a desktop
   * changes things; another principal's session is SESSION_NOT_FOUND).
   */
  requireLive(sessionId: string, principal: string | null) {
    const row = this.sessionOf(sessionId, principal);
    if (row.state !== 'running' && row.state !== 'starting') {
      throw new HoldfastError('SESSION_EXITED', `session ${sessionId} is ${row.state}; open a new one with session(action="open")`, { retryable: false });
    }
    return row;
  }

  private sessionOf(sessionId: string, principal: string | null): SessionRow {
    if (principal === null) return this.sessions.requireExisting(sessionId);
    return requireSessionAccess({ call: { principal }, services: { sessions: this.sessions } }, sessionId, 'editor').session;
  }

  /** A desktop session row of this session (open or ended). */
  private requireRow(sessionId: string, principal: string, id: string): DesktopSessionRow {
    this.sessionOf(sessionId, principal);
    const row = isId('desktopSession', id) ? this.repo.session(id) : undefined;
    if (!row || row.session_id !== sessionId) throw notFound(`no desktop session ${id} in session ${sessionId}; connect one with desktop_connect`);
    return row;
  }

  /** An open desktop session row of this live session. */
  private requireOpen(sessionId: string, principal: string, id: string): DesktopSessionRow {
    this.requireLive(sessionId, principal);
    const row = this.requireRow(sessionId, principal, id);
    if (row.ended_at !== null) throw notFound(`desktop session ${id} is closed (${row.end_reason}); connect again with desktop_connect`);
    return row;
  }

  /** `ds_…` → its lock; an alias → the device's lock. */
  private resolveTarget(id: string): { lockKey: string; row: DesktopSessionRow | undefined } {
    if (isId('desktopSession', id)) {
      const row = this.repo.session(id);
      if (!row) throw notFound(`no desktop session ${id}; see \`holdfast desktop list\``);
      return { lockKey: row.lock_key, row };
    }
    this.book.require(id);
    return { lockKey: deviceLockKey(id), row: undefined };
  }
}

function notFound(message: string): HoldfastError {
  return new HoldfastError('DESKTOP_NOT_FOUND', message, { retryable: false });
}

/** The view of a desktop session that has ended (from its row). */
function closedView(row: DesktopSessionRow): DesktopSessionView {
  return {
    desktop_session_id: row.id,
    device: row.device,
    backend: row.device === 'virtual' ? 'virtual' : 'vnc',
    state: 'closed',
    closed_reason: row.end_reason,
    authorization: 'view',
    control_enabled: false,
    paused: false,
    generation: 0,
    geometry_epoch: 0,
    source_size: null,
    displays: [],
    selected_display: 0,
    x_display: null,
    driver_pid: 0,
    connected_at: null,
    last_error: null,
  };
}
