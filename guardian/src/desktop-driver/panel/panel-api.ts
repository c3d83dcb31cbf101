import { HoldfastError, type PanelTicket } from '@holdfast/shared/protocol';
import { log } from '../../log.js';
import type { BrowserSession } from './loopback-auth.js';
import type { DaemonLink } from './daemon-link.js';
import type { PanelHost } from './panel-server.js';

/** An API answer: HTTP status and JSON body. */
export interface ApiReply {
  status: number;
  body: unknown;
}

const STATUS_OF: Readonly<Record<string, number>> = {
  BAD_REQUEST: 400,
  DESKTOP_NOT_FOUND: 404,
  DEVICE_NOT_FOUND: 404,
  DEVICE_BUSY: 409,
  DESKTOP_AUTH_FAILED: 409,
  CREDENTIAL_MISSING: 409,
  KEYRING_UNAVAILABLE: 409,
  CONTROL_NOT_GRANTED: 409,
  DESKTOP_UNAVAILABLE: 502,
  PANEL_UNAVAILABLE: 503,
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null);

/**
 * The panel page's actions (issue 16 §2, §4), once the request passed the server's checks (cookie,
 * exact Origin, CSRF token). What only the daemon can do — the device book, the keyring, the
 * device locks, the recorded pause — goes there over {@link DaemonLink} as the person's own
 * command; the video and the view itself stay here in the driver.
 *
 * - `GET state?view=` → the view, its desktop session (if connected), the request (session,
 *   principal, workspace) and the saved devices (null with `daemon_error` while the daemon is away);
 * - `POST connect` → `desktop.panel_connect` (saved device, `virtual`, or host/port/password typed in);
 * - `POST pause` → paused here at once (so it holds even while the daemon is away), then recorded
 *   by the daemon as `holdfast desktop pause` does — the same lock, which the agent cannot lift;
 * - `POST resume` / `disconnect` → `desktop.resume` / `desktop.disconnect` (the person's commands);
 * - `POST decline` → closes the view without connecting anything;
 * - `POST ticket` → a one-time video ticket for this browser session.
 */
export class PanelApi {
  constructor(
    private readonly host: PanelHost,
    private readonly daemon: DaemonLink,
    private readonly pageTicket: (viewId: string, s: BrowserSession) => PanelTicket,
  ) {}

  /** `GET /api/state?view=<view_id>`. */
  async state(viewId: string): Promise<ApiReply> {
    return this.guard(async () => {
      const view = this.host.views.get(viewId);
      const session = view.desktop_session_id ? this.sessionView(view.desktop_session_id) : null;
      let request: unknown = null;
      let devices: unknown = null;
      let daemonError: string | null = null;
      try {
        const r = await this.daemon.call<{ remote_session_id: string; principal: string; workspace: string; devices: unknown[] }>('desktop.view', { view_id: viewId }, 10_000);
        request = { remote_session_id: r.remote_session_id, principal: r.principal, workspace: r.workspace };
        devices = r.devices;
      } catch (err) {
        daemonError = (err as Error).message;
      }
      return { view, session, request, devices, daemon_error: daemonError };
    });
  }

  /** `POST /api/<action>`. */
  async post(action: string, body: Record<string, unknown>, s: BrowserSession): Promise<ApiReply> {
    return this.guard(async () => {
      switch (action) {
        case 'connect': {
          const viewId = this.need(body, 'view_id');
          this.host.views.get(viewId);
          const params: Record<string, unknown> = { view_id: viewId };
          for (const k of ['device', 'host', 'password', 'alias', 'authorization']) if (typeof body[k] === 'string' && body[k] !== '') params[k] = body[k];
          if (body.port !== undefined && body.port !== '') params.port = Number(body.port);
          for (const k of ['save', 'remember_password', 'auto_connect']) if (body[k] === true) params[k] = true;
          const r = await this.daemon.call<Record<string, unknown>>('desktop.panel_connect', params, 60_000);
          log(`panel: the person connected ${String(r.device)} for ${viewId} as ${String(r.desktop_session_id)}`);
          return r;
        }
        case 'pause': {
          const id = this.need(body, 'desktop_session_id');
          this.host.session(id).pause();
          try {
            await this.daemon.call('desktop.pause', { id }, 15_000);
            return { session: this.sessionView(id), recorded: true };
          } catch (err) {
            return { session: this.sessionView(id), recorded: false, warning: `paused here, but the daemon did not record it: ${(err as Error).message}` };
          }
        }
        case 'resume':
        case 'disconnect': {
          const id = this.need(body, 'desktop_session_id');
          this.host.session(id);
          await this.daemon.call(`desktop.${action}`, { id }, 15_000);
          return { session: this.sessionView(id) };
        }
        case 'decline': {
          const viewId = this.need(body, 'view_id');
          this.host.views.get(viewId);
          await this.daemon.call('desktop.pair', { view_id: viewId, close: true }, 15_000);
          return { view: this.host.views.get(viewId) };
        }
        case 'ticket':
          return this.pageTicket(this.need(body, 'view_id'), s);
        default:
          throw new HoldfastError('BAD_REQUEST', `unknown action ${action}`, { retryable: false });
      }
    });
  }

  private sessionView(id: string): unknown {
    try {
      return this.host.session(id).view();
    } catch {
      return null;
    }
  }

  private need(body: Record<string, unknown>, key: string): string {
    const v = str(body[key]);
    if (v === null) throw new HoldfastError('BAD_REQUEST', `${key} is required`, { retryable: false });
    return v;
  }

  private async guard(fn: () => Promise<unknown>): Promise<ApiReply> {
    try {
      return { status: 200, body: await fn() };
    } catch (err) {
      if (err instanceof HoldfastError) return { status: STATUS_OF[err.code] ?? 409, body: { error: { code: err.code, message: err.message, retryable: err.retryable } } };
      throw err;
    }
  }
}
