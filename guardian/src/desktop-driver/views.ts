import { DesktopLimits, HoldfastError, newId, PanelLimits, type PanelMode, type ViewView } from '@holdfast/shared/protocol';

interface View {
  view: ViewView;
  usedAt: number;
  waiters: Set<() => void>;
  confirmTimer: NodeJS.Timeout | null;
}

/**
 * Views: requests for a person to pick and connect a desktop for the session (issue 15
 * `desktop_open`; the browser panel of issue 16 serves the same records). A view is `waiting`
 * until a person connects a desktop for it (`connected`, with its `desktop_session_id`) or closes
 * it (`closed`). At most {@link DesktopLimits.MAX_VIEWS}; views unused for
 * {@link DesktopLimits.VIEW_TTL_MS} are dropped when a new one is opened.
 *
 * Issue 16: a view records how it was presented (`panel`, `panel_url`, `browser_opened`); an MCP
 * Apps view is `app_state: pending` until the app reports ready (`confirmed`) and turns
 * `not_confirmed` after {@link PanelLimits.APP_CONFIRM_MS}, which also answers a waiting
 * `desktop_get_session` (the agent may then offer `desktop_open_browser`; nothing opens by itself).
 */
export class ViewStore {
  private readonly views = new Map<string, View>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly appConfirmMs: number = PanelLimits.APP_CONFIRM_MS,
  ) {}

  /**
   * Opens a view (optionally for a named device).
   * @throws HoldfastError `LIMIT_EXCEEDED` when {@link DesktopLimits.MAX_VIEWS} are in use.
   */
  open(device: string | null, panel?: PanelMode): ViewView {
    const t = this.now();
    for (const [id, v] of this.views) if (t - v.usedAt > DesktopLimits.VIEW_TTL_MS) this.drop(id);
    if (this.views.size >= DesktopLimits.MAX_VIEWS) {
      const closed = [...this.views.entries()].find(([, v]) => v.view.state === 'closed');
      if (!closed) throw new HoldfastError('LIMIT_EXCEEDED', `${DesktopLimits.MAX_VIEWS} desktop views are open in this session; use one of them with desktop_get_session`, { retryable: false });
      this.drop(closed[0]);
    }
    const view: ViewView = { view_id: newId('desktopView'), state: 'waiting', device, created_at: t, desktop_session_id: null };
    const entry: View = { view, usedAt: t, waiters: new Set(), confirmTimer: null };
    if (panel) {
      view.panel = panel;
      view.panel_url = null;
      view.browser_opened = null;
      view.app_state = panel === 'apps' ? 'pending' : null;
    }
    if (panel === 'apps') {
      entry.confirmTimer = setTimeout(() => {
        entry.confirmTimer = null;
        if (view.app_state === 'pending') {
          view.app_state = 'not_confirmed';
          this.wake(entry);
        }
      }, this.appConfirmMs);
      entry.confirmTimer.unref();
    }
    this.views.set(view.view_id, entry);
    return { ...view };
  }

  /** Records how the view reached the person (panel URL, whether a browser was opened). */
  present(id: string, p: { panel_url?: string; browser_opened?: boolean }): ViewView {
    const v = this.entry(id);
    if (p.panel_url !== undefined) v.view.panel_url = p.panel_url;
    if (p.browser_opened !== undefined) v.view.browser_opened = p.browser_opened;
    return { ...v.view };
  }

  /** The MCP Apps view of `id` is displayed (issue 16 §6); a `not_confirmed` view turns `confirmed` too. */
  confirmApp(id: string): ViewView {
    const v = this.entry(id);
    v.usedAt = this.now();
    v.view.app_state = 'confirmed';
    if (v.confirmTimer) clearTimeout(v.confirmTimer);
    v.confirmTimer = null;
    return { ...v.view };
  }

  /** Every view (copies). */
  list(): ViewView[] {
    return [...this.views.values()].map((v) => ({ ...v.view }));
  }

  /** A view (counts as a use). @throws HoldfastError `DESKTOP_NOT_FOUND` for an unknown (or expired) id. */
  get(id: string): ViewView {
    const v = this.entry(id);
    v.usedAt = this.now();
    return { ...v.view };
  }

  /**
   * Waits up to `waitMs` while the view is `waiting`; answers `wait_timed_out: true` when it
   * still is. Aborting the signal answers at once.
   */
  async wait(id: string, waitMs: number, signal?: AbortSignal): Promise<ViewView> {
    const v = this.entry(id);
    v.usedAt = this.now();
    if (v.view.state === 'waiting' && waitMs > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          v.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        v.waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
    const timedOut = v.view.state === 'waiting' && v.view.app_state !== 'not_confirmed';
    return { ...v.view, wait_timed_out: timedOut };
  }

  /**
   * A person connected `desktopSessionId` for the view.
   * @throws HoldfastError `BAD_REQUEST` when the view is closed.
   */
  bind(id: string, desktopSessionId: string): ViewView {
    const v = this.entry(id);
    if (v.view.state === 'closed') throw new HoldfastError('BAD_REQUEST', `view ${id} was closed; the agent must call desktop_open again`, { retryable: false });
    v.view.state = 'connected';
    v.view.desktop_session_id = desktopSessionId;
    this.wake(v);
    return { ...v.view };
  }

  /** Closes the view (the person declined or closed it). */
  close(id: string): ViewView {
    const v = this.entry(id);
    v.view.state = 'closed';
    this.wake(v);
    return { ...v.view };
  }

  private entry(id: string): View {
    const v = this.views.get(id);
    if (!v) throw new HoldfastError('DESKTOP_NOT_FOUND', `no desktop view ${id} in this session (views unused for ${DesktopLimits.VIEW_TTL_MS / 60_000} min are removed); call desktop_open again`, { retryable: false });
    return v;
  }

  private wake(v: View): void {
    for (const w of [...v.waiters]) w();
  }

  private drop(id: string): void {
    const v = this.views.get(id);
    if (!v) return;
    this.views.delete(id);
    if (v.confirmTimer) clearTimeout(v.confirmTimer);
    this.wake(v);
  }
}
