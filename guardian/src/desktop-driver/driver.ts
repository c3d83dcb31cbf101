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
} from '@holdfast/shared/protocol';
import { log } from '../log.js';
import { VirtualDisplay } from './backends/virtual-display.js';
import { DesktopSession } from './desktop-session.js';
import { OperationLedger } from './operation-ledger.js';
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
export class Driver {
  readonly startedAt = Date.now();
  readonly views = new ViewStore();
  readonly ledger = new OperationLedger<ActionResult>();
  private readonly sessions = new Map<string, DesktopSession>();
  private readonly virtual: VirtualDisplay;
  private connecting = new Map<string, Promise<DesktopSessionView>>();

  constructor(
    sessionDir: string,
    readonly build: string,
    private readonly onDisplayEnv: (env: DisplayEnvEvent) => void,
  ) {
    this.virtual = new VirtualDisplay(join(sessionDir, 'desktop'), (env) => this.onDisplayEnv(env));
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
