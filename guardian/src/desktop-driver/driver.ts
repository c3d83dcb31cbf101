import { join } from 'node:path';
import {
  DesktopLimits,
  HoldfastError,
  ProtocolVersions,
  type ActionParams,
  type ActionResult,
  type ConnectParams,
  type DesktopSessionView,
  type DisplayEnvEvent,
  type DriverStatus,
  type OpenBrowserResult,
  type OpenViewParams,
  type PanelRequest,
  type PanelTicket,
  type ViewView,
} from '@holdfast/shared/protocol';
import { log } from '../log.js';
import { VirtualDisplay } from './backends/virtual-display.js';
import { DesktopSession } from './desktop-session.js';
import { OperationLedger } from './operation-ledger.js';
import { panelAssets } from './panel/assets.js';
import { DaemonLink } from './panel/daemon-link.js';
import { PanelServer, type PanelHost } from './panel/panel-server.js';
import { ViewStore } from './views.js';

/** Closed desktop sessions kept to answer `closed` (issue 15 `desktop_get_session`). */
const CLOSED_KEPT = 32;

/**
 * The desktop driver of one session (issue 15, DESIGN §5.1): every desktop connection of the
 * session, the private display, the views, and the `operation_id` ledger. It lives in its own
 * process (a child of the guardian) so a crash in RFB decoding or image encoding never takes the
 * shell down, and so the panel of issue 16 can serve its page and video from here.
 *
 * `onDisplayEnv` tells the guardian when the private display appears or goes, so the session's
 * shell and tasks get `DISPLAY` and `XAUTHORITY`.
 */
export class Driver implements PanelHost {
  readonly startedAt = Date.now();
  readonly views = new ViewStore();
  readonly ledger = new OperationLedger<ActionResult>();
  private readonly sessions = new Map<string, DesktopSession>();
  private readonly virtual: VirtualDisplay;
  private connecting = new Map<string, Promise<DesktopSessionView>>();
  private readonly daemonLink = new DaemonLink();
  private panelServer: PanelServer | null = null;

  constructor(
    private readonly sessionDir: string,
    readonly build: string,
    private readonly onDisplayEnv: (env: DisplayEnvEvent) => void,
  ) {
    this.virtual = new VirtualDisplay(join(sessionDir, 'desktop'), (env) => this.onDisplayEnv(env));
  }

  // ---- views and the panel (issue 16) ---------------------------------------------------------

  /**
   * `d.open_view`: a view for the person; with `panel`, the panel server runs and the view is
   * presented: `browser` opens the page (fresh one-time secret) for the person; `apps` waits for
   * the MCP Apps view to report ready; `terminal` and `off` only record the mode.
   * @throws HoldfastError `LIMIT_EXCEEDED` (32 views).
   */
  async openView(p: OpenViewParams): Promise<ViewView> {
    const view = this.views.open(p.device, p.panel?.mode);
    if (!p.panel) return view;
    const panel = await this.panel(p.panel);
    let out = this.views.present(view.view_id, { panel_url: panel.viewUrl(view.view_id) });
    if (p.panel.mode === 'browser') {
      const r = await panel.openBrowser(view.view_id, p.panel.browser);
      out = this.views.present(view.view_id, { browser_opened: r.opened });
    }
    return out;
  }

  /** `d.panel_link`: the view's page with a fresh one-time secret (for the person's terminal). */
  async panelLink(viewId: string, req: PanelRequest): Promise<{ url: string; expires_at: number }> {
    return (await this.panel(req)).link(viewId);
  }

  /** `d.panel_ticket`: a video ticket for the terminal viewer or an MCP Apps view. */
  async panelTicket(viewId: string, kind: 'terminal' | 'app', req: PanelRequest): Promise<PanelTicket> {
    return (await this.panel(req)).ticket(viewId, kind);
  }

  /** `d.open_browser` (`desktop_open_browser`). */
  async openBrowser(viewId: string, req: PanelRequest): Promise<OpenBrowserResult> {
    const panel = await this.panel(req);
    this.views.get(viewId);
    const r = await panel.openBrowser(viewId, req.browser);
    this.views.present(viewId, { panel_url: panel.viewUrl(viewId), browser_opened: r.opened });
    return { opened: r.opened, panel_url: panel.viewUrl(viewId), detail: r.detail };
  }

  /** The panel server, started on first use; `req` says where the daemon listens. */
  private async panel(req: PanelRequest): Promise<PanelServer> {
    this.daemonLink.setSocket(req.control_socket);
    this.panelServer ??= new PanelServer(this, panelAssets(), this.daemonLink, join(this.sessionDir, 'desktop'));
    await this.panelServer.start();
    return this.panelServer;
  }

  status(): DriverStatus {
    const v = this.virtual.current;
    return {
      pid: process.pid,
      build: this.build,
      proto: ProtocolVersions.DESKTOP_DRIVER,
      started_at: this.startedAt,
      sessions: [...this.sessions.values()].map((s) => s.view()),
      views: this.views.list(),
      virtual: v ? { x_display: v.xDisplay, pid: v.pid, server: v.server } : null,
      panel: this.panelServer?.status() ?? null,
    };
  }

  /**
   * Connects a desktop session (`d.connect`). Connecting an id that is already open answers it as
   * it is (a retried call); the daemon holds the device lock.
   * @throws HoldfastError `DESKTOP_UNAVAILABLE`, `DESKTOP_AUTH_FAILED`, `BAD_REQUEST` (a second `virtual`).
   */
  connect(p: ConnectParams): Promise<DesktopSessionView> {
    const known = this.sessions.get(p.desktop_session_id);
    if (known?.isOpen) return Promise.resolve(known.view());
    const pending = this.connecting.get(p.desktop_session_id);
    if (pending) return pending;
    if (p.backend.kind === 'virtual') {
      const other = [...this.sessions.values()].find((s) => s.isOpen && s.view().backend === 'virtual');
      if (other) throw new HoldfastError('BAD_REQUEST', `the private display is already connected as ${other.id}`, { retryable: false, details: { desktop_session_id: other.id } });
    }
    const s = new DesktopSession({ params: p, driverPid: process.pid, virtual: this.virtual, ledger: this.ledger });
    const run = (async () => {
      await s.open();
      this.remember(s);
      return s.view();
    })().finally(() => this.connecting.delete(p.desktop_session_id));
    this.connecting.set(p.desktop_session_id, run);
    return run;
  }

  /** A desktop session (open or recently closed). @throws HoldfastError `DESKTOP_NOT_FOUND`. */
  session(id: string): DesktopSession {
    const s = this.sessions.get(id);
    if (!s) {
      throw new HoldfastError('DESKTOP_NOT_FOUND', `no desktop session ${id} in this session's driver; connect with desktop_connect`, { retryable: false, details: { reason: 'unknown' } });
    }
    return s;
  }

  /** `d.action`. */
  action(p: ActionParams): Promise<ActionResult> {
    return this.session(p.desktop_session_id).act(p);
  }

  /** Closes every desktop session and the private display (the session is ending). */
  async shutdown(): Promise<void> {
    await this.panelServer?.close().catch(() => undefined);
    this.daemonLink.close();
    await Promise.all([...this.sessions.values()].map((s) => s.close('session_ended')));
    await this.virtual.stop();
    log('desktop driver shut down');
  }

  private remember(s: DesktopSession): void {
    this.sessions.set(s.id, s);
    const closed = [...this.sessions.values()].filter((x) => !x.isOpen);
    for (const c of closed.slice(0, Math.max(0, closed.length - CLOSED_KEPT))) this.sessions.delete(c.id);
  }
}

/** Clamps a `wait_ms` to 0–{@link DesktopLimits.VIEW_WAIT_MAX_MS}. */
export function clampViewWait(ms: unknown): number {
  return typeof ms === 'number' && Number.isFinite(ms) ? Math.max(0, Math.min(DesktopLimits.VIEW_WAIT_MAX_MS, Math.floor(ms))) : DesktopLimits.VIEW_WAIT_MAX_MS;
}
