import {
  D,
  HoldfastError,
  actionParamsProblem,
  isCaptureParams,
  isConnectParams,
  isPanelRequest,
  isScreenshotParams,
  ProtocolVersions,
  type ActionParams,
  type DesktopSessionView,
  type PanelRequest,
} from '@holdfast/shared/protocol';
import type { RequestContext } from '@holdfast/shared/wire';
import { clampViewWait, type Driver } from './driver.js';

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (p: unknown, k: string): string | null => (isObj(p) && typeof p[k] === 'string' ? (p[k] as string) : null);

/**
 * Request dispatch of the desktop driver protocol (shared/protocol/desktop.ts): every request is
 * checked with its guard (`BAD_REQUEST`), then served by the {@link Driver}. Unknown methods get
 * `UNKNOWN_METHOD`. `d.shutdown` answers, then the process exits (see main.ts).
 */
export async function routeDriverRequest(driver: Driver, method: string, params: unknown, ctx: RequestContext): Promise<unknown> {
  const bad = (what: string): HoldfastError => new HoldfastError('BAD_REQUEST', `${method}: invalid parameters (${what})`, { retryable: false });
  const ds = (): string => str(params, 'desktop_session_id') ?? (() => { throw bad('desktop_session_id required'); })();
  const viewId = (): string => str(params, 'view_id') ?? (() => { throw bad('view_id required'); })();
  const panelOf = (): PanelRequest => {
    const panel = isObj(params) ? params.panel : undefined;
    if (!isPanelRequest(panel)) throw bad('panel {mode, control_socket, browser} required');
    return panel;
  };
  switch (method) {
    case D.hello:
      return { proto: ProtocolVersions.DESKTOP_DRIVER, build: driver.build, pid: process.pid };
    case D.status:
      return driver.status();
    case D.connect:
      if (!isConnectParams(params)) throw bad('desktop_session_id, device, backend, authorization, paused');
      return driver.connect(params);
    case D.session:
      return driver.session(ds()).view();
    case D.screenshot:
      if (!isScreenshotParams(params)) throw bad('desktop_session_id; max_long_edge a whole number 64–2048; rect {x, y, width, height} in whole pixels');
      return driver.session(params.desktop_session_id).screenshot(params);
    case D.action: {
      const problem = actionParamsProblem(params);
      if (problem !== null) throw bad(problem);
      return driver.action(params as ActionParams);
    }
    case D.setControl: {
      const enabled = isObj(params) ? params.enabled : undefined;
      if (typeof enabled !== 'boolean') throw bad('enabled (boolean) required');
      return driver.session(ds()).setControl(enabled);
    }
    case D.selectDisplay: {
      const display = isObj(params) ? params.display : undefined;
      if (typeof display !== 'number' || !Number.isInteger(display) || display < 0) throw bad('display (index ≥ 0) required');
      return driver.session(ds()).selectDisplay(display);
    }
    case D.disconnect:
      return driver.session(ds()).close(str(params, 'reason') ?? 'disconnected') as Promise<DesktopSessionView>;
    case D.pause:
      return driver.session(ds()).pause();
    case D.resume:
      return driver.session(ds()).resume();
    case D.openView: {
      const panel = isObj(params) ? params.panel : undefined;
      if (panel !== undefined && !isPanelRequest(panel)) throw bad('panel {mode, control_socket, browser}');
      return driver.openView({ device: str(params, 'device'), ...(panel ? { panel } : {}) });
    }
    case D.panelLink:
      return driver.panelLink(viewId(), panelOf());
    case D.panelTicket: {
      const kind = str(params, 'kind');
      if (kind !== 'terminal' && kind !== 'app') throw bad('kind terminal or app');
      return driver.panelTicket(viewId(), kind, panelOf());
    }
    case D.openBrowser:
      return driver.openBrowser(viewId(), panelOf());
    case D.appReady:
      return driver.views.confirmApp(viewId());
    case D.waitView:
      return driver.views.wait(viewId(), clampViewWait(isObj(params) ? params.wait_ms : undefined), ctx.signal);
    case D.bindView:
      return driver.views.bind(viewId(), ds());
    case D.closeView:
      return driver.views.close(viewId());
    case D.capture:
      if (!isCaptureParams(params)) throw bad('display (":N"), max_long_edge, rect');
      // Loaded on first use: the X11 client is most of the bundle and most drivers never need it.
      return (await import('./x11-capture.js')).captureDisplay(params);
    case D.shutdown:
      await driver.shutdown();
      return { ok: true };
    default:
      throw new HoldfastError('UNKNOWN_METHOD', `the desktop driver does not serve ${method}`, { retryable: false });
  }
}
