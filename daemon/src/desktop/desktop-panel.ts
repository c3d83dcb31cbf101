import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CallContext, ControlParsedParams, ControlResult } from '@holdfast/shared/control';
import type { PanelModeSetting } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import { D, type DesktopSessionView, type OpenBrowserResult, type PanelMode, type PanelRequest, type PanelTicket, type ViewView } from '@holdfast/shared/protocol';
import { DESKTOP_APP_URI, desktopViewUri, MCP_APP_MIME_TYPE } from '@holdfast/shared/tool-constants';
import type { ConfigStore } from '../config-store.js';
import type { DeviceRow } from '../store/desktop-repo.js';
import { deviceLockKey } from './device-book.js';
import type { DesktopService } from './desktop-service.js';

/** The command that shows a view's desktop in the person's terminal (issue 16 §5). */
export function viewCommand(viewId: string): string {
  return `holdfast desktop view --view ${viewId}`;
}

/**
 * How `desktop_open` presents a view (issue 16 §6, `--panel`): `apps` for a client that declared
 * the MCP Apps UI extension (modes `auto` and `apps`); else `browser`, `terminal` and `off` as
 * set; `auto` (and `apps` for a client without the extension) picks a browser when holdfastd has a
 * display (`DISPLAY` or `WAYLAND_DISPLAY`), the terminal viewer when the adapter runs in a
 * terminal, else off (the pairing command only).
 */
export function resolvePanelMode(setting: PanelModeSetting, client: { apps: boolean; terminal: boolean } | undefined, env: NodeJS.ProcessEnv = process.env): PanelMode {
  if (setting === 'browser' || setting === 'terminal' || setting === 'off') return setting;
  if (client?.apps) return 'apps';
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return 'browser';
  if (client?.terminal) return 'terminal';
  return 'off';
}

/** The JSON of the view resource the MCP Apps view reads. */
export interface AppViewState {
  view: ViewView;
  session: DesktopSessionView | null;
  /** A one-time video ticket once a desktop is connected for the view. */
  ticket: PanelTicket | null;
}

/**
 * The daemon's side of the desktop panel (issue 16): the policy around what the session's desktop
 * driver serves — how views are presented, what the person chose in the page (device book,
 * keyring, locks), one-time links and video tickets for the person's terminal, the MCP Apps view
 * and its resource. The page itself, the video and the secrets live in the driver.
 */
export class DesktopPanel {
  constructor(
    private readonly desktop: DesktopService,
    private readonly config: ConfigStore,
    private readonly controlSocket: string,
  ) {
    desktop.panelFor = (mode) => this.request(mode);
  }

  /** What the driver needs for a view presented as `mode`. */
  request(mode: PanelMode): PanelRequest {
    return { mode, control_socket: this.controlSocket, browser: this.config.config.desktop.panel.browser };
  }

  /** The presentation of a tool call's views (from the adapter's `panel` context, else the config). */
  modeFor(call: Pick<CallContext, 'panel'>): PanelMode {
    return resolvePanelMode(call.panel?.mode ?? this.config.config.desktop.panel.mode, call.panel);
  }

  /**
   * `desktop.panel_connect`: the person connects a desktop for a view from the page.
   * @throws HoldfastError `BAD_REQUEST` (a combination the page should not allow, naming it),
   *   `DESKTOP_NOT_FOUND`, `DEVICE_NOT_FOUND`, `DEVICE_BUSY`, `KEYRING_UNAVAILABLE`,
   *   `CREDENTIAL_MISSING`, `DESKTOP_UNAVAILABLE`, `DESKTOP_AUTH_FAILED`.
   */
  async connect(p: ControlParsedParams<'desktop.panel_connect'>): Promise<ControlResult<'desktop.panel_connect'>> {
    const idx = this.desktop.viewRow(p.view_id);
    const typed = p.host !== undefined;
    const bad = (m: string): HoldfastError => new HoldfastError('BAD_REQUEST', m, { retryable: false });
    if (typed === (p.device !== undefined)) throw bad('choose a saved device, virtual, or type a host and port');
    if (p.remember_password && !p.save) throw bad('"remember password" needs "save device"');
    if (p.auto_connect && !p.save) throw bad('"allow auto-connect" needs "save device"');
    if (p.remember_password && !p.password) throw bad('"remember password" needs a password');
    if (p.save && !p.alias) throw bad('give the device an alias to save it under');
    if (p.save && p.alias === 'virtual') throw bad('"virtual" is the private display, not an alias');
    let saved: ControlResult<'desktop.panel_connect'>['saved'] = null;
    let label: string;
    let lockKey: string;
    let host: string;
    let port: number;
    let password = p.password;
    if (p.device === 'virtual') {
      if (p.save) throw bad('the private display cannot be saved as a device');
      const out = await this.desktop.connect(idx.session_id, null, 'virtual', true);
      return this.bind(p.view_id, idx.session_id, out.kind === 'connected' ? out.session : null, 'virtual', null);
    }
    if (typed) {
      host = p.host!;
      port = p.port ?? 5900;
    } else {
      const d = this.desktop.book.require(p.device!);
      host = d.host;
      port = d.port;
      password ??= await this.storedPassword(d);
    }
    if (p.save) {
      const credential = p.remember_password ? 'keyring' : typed ? (p.password ? 'ask' : 'none') : p.password ? 'ask' : 'keep';
      if (p.auto_connect && credential === 'ask') throw bad('"allow auto-connect" needs a remembered password (or a server without one)');
      saved = (await this.desktop.book.save({ alias: p.alias!, host, port, authorization: p.authorization, auto_connect: p.auto_connect, credential, ...(p.remember_password ? { password: p.password! } : {}) })).device;
      label = p.alias!;
      lockKey = deviceLockKey(label);
    } else if (typed) {
      label = `${host}:${port}`;
      lockKey = `adhoc:${host}:${port}`;
    } else {
      label = p.device!;
      lockKey = deviceLockKey(label);
    }
    const backend = { kind: 'vnc' as const, host, port, ...(password !== undefined ? { password } : {}) };
    const out = await this.desktop.connect(idx.session_id, null, label, true, undefined, { lockKey, backend, authorization: p.authorization });
    return this.bind(p.view_id, idx.session_id, out.kind === 'connected' ? out.session : null, label, saved);
  }

  /** `desktop.panel_link` (`holdfast desktop pair`): the page with a fresh one-time secret. */
  async link(viewId: string): Promise<ControlResult<'desktop.panel_link'>> {
    const idx = this.desktop.viewRow(viewId);
    return this.desktop.driver(idx.session_id, D.panelLink, { view_id: viewId, panel: this.request('off') });
  }

  /** `desktop.view_ticket` (`holdfast desktop view`): a terminal video ticket. */
  async viewTicket(viewId: string): Promise<ControlResult<'desktop.view_ticket'>> {
    const idx = this.desktop.viewRow(viewId);
    const t = await this.desktop.driver<PanelTicket>(idx.session_id, D.panelTicket, { view_id: viewId, kind: 'terminal', panel: this.request('terminal') });
    const v = await this.desktop.driver<DesktopSessionView>(idx.session_id, D.session, { desktop_session_id: t.desktop_session_id });
    return { ...t, remote_session_id: idx.session_id, device: v.device, authorization: v.authorization };
  }

  /** `desktop_open_browser`: opens the view's page in the person's browser. */
  async openBrowser(sessionId: string, principal: string, viewId: string): Promise<OpenBrowserResult> {
    this.desktop.requireLive(sessionId, principal);
    this.desktop.viewRow(viewId, sessionId);
    return this.desktop.driver<OpenBrowserResult>(sessionId, D.openBrowser, { view_id: viewId, panel: this.request('browser') }, 40_000);
  }

  /**
   * The view resource the MCP Apps view reads (`holdfast://remote-sessions/{rs}/desktop-views/{view_id}`):
   * the view (reading it reports the view as displayed: `app_state: confirmed`), its desktop
   * session, and a one-time video ticket once a desktop is connected for it. Resuming, connecting
   * and disconnecting stay with the person's page and terminal.
   * @throws HoldfastError `SESSION_NOT_FOUND`, `DESKTOP_NOT_FOUND`.
   */
  async appView(sessionId: string, principal: string, viewId: string): Promise<ControlResult<'resource.read'>> {
    this.desktop.requireLive(sessionId, principal);
    this.desktop.viewRow(viewId, sessionId);
    const view = await this.desktop.driver<ViewView>(sessionId, D.appReady, { view_id: viewId });
    const ds = view.state === 'connected' ? view.desktop_session_id : null;
    const session = ds ? await this.desktop.driver<DesktopSessionView>(sessionId, D.session, { desktop_session_id: ds }).catch(() => null) : null;
    const ticket = ds && session?.state !== 'closed' ? await this.desktop.driver<PanelTicket>(sessionId, D.panelTicket, { view_id: viewId, kind: 'app', panel: this.request('apps') }) : null;
    const body: AppViewState = { view, session, ticket };
    return { contents: [{ uri: desktopViewUri(sessionId, viewId), mimeType: 'application/json', text: JSON.stringify(body) }] };
  }

  /** The MCP Apps resource `ui://holdfast/desktop.html` (built with the guardian bundle). */
  appResource(): ControlResult<'resource.read'> {
    const text = readFileSync(fileURLToPath(import.meta.resolve('@holdfast/guardian/desktop-app')), 'utf8');
    return {
      contents: [
        {
          uri: DESKTOP_APP_URI,
          mimeType: MCP_APP_MIME_TYPE,
          text,
          // The video comes straight from the session's desktop driver on a loopback port the kernel picks.
          _meta: { ui: { csp: { connectDomains: ['ws://127.0.0.1:*'] }, prefersBorder: true } },
        },
      ],
    };
  }

  private async storedPassword(d: DeviceRow): Promise<string | undefined> {
    if (d.credential === 'ask') return undefined;
    return this.desktop.book.password(d);
  }

  private async bind(viewId: string, sessionId: string, session: DesktopSessionView | null, label: string, saved: ControlResult<'desktop.panel_connect'>['saved']): Promise<ControlResult<'desktop.panel_connect'>> {
    if (!session) throw new HoldfastError('INTERNAL', 'the panel connection did not connect');
    const v = await this.desktop.driver<ViewView>(sessionId, D.bindView, { view_id: viewId, desktop_session_id: session.desktop_session_id });
    return { view_id: viewId, state: v.state, desktop_session_id: session.desktop_session_id, remote_session_id: sessionId, device: label, saved };
  }
}
