import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  DesktopLimits,
  HoldfastError,
  type ActionParams,
  type ActionResult,
  type Authorization,
  type ConnectParams,
  type DesktopSessionView,
  type DesktopState,
  type DisplayView,
  type ObservationView,
  type ScreenshotParams,
  type ScreenshotResult,
} from '@holdfast/shared/protocol';
import { log } from '../log.js';
import type { VirtualDisplay } from './backends/virtual-display.js';
import { Framebuffer } from './framebuffer.js';
import { encodePng, sourceRect } from './image-encoder.js';
import { planAction, type InputStep, type PointerState } from './input-plan.js';
import { ObservationStore, type Observation } from './observations.js';
import type { OperationLedger } from './operation-ledger.js';
import { LOCAL_ENCODINGS, REMOTE_ENCODINGS } from './rfb/messages.js';
import { RfbClient, RfbConnectionLost, type RfbEndpoint } from './rfb/rfb-client.js';

/** What a {@link DesktopSession} needs from the driver. */
export interface DesktopSessionDeps {
  params: ConnectParams;
  driverPid: number;
  /** The session's private display (used by the `virtual` backend). */
  virtual: VirtualDisplay;
  /** Action outcomes by `operation_id`, shared by the driver's desktop sessions. */
  ledger: OperationLedger<ActionResult>;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The part of an action that decides whether two calls with one `operation_id` are the same. */
function actionDigest(p: ActionParams): string {
  const keyed = [p.desktop_session_id, p.observation_id, p.action, p.x, p.y, p.button ?? null, p.to_x, p.to_y, p.dx, p.dy, p.key, p.keys, p.text];
  return createHash('sha256').update(JSON.stringify(keyed)).digest('hex');
}

/**
 * One desktop connection of a session (issue 15): an RFB client to a VNC server (`vnc`) or to the
 * session's private display (`virtual`), its {@link Framebuffer}, observations, the input state
 * (pointer, held buttons and keys), the agent's control switch and the person's pause lock.
 *
 * Rules it enforces (issue 15 §5–§7): input only when connected, not paused, on a `control`
 * device with control enabled, and at image pixels of a live observation; `operation_id`s through
 * the driver's {@link OperationLedger}; a dropped connection mid-send is `outcome_unknown` and
 * nothing is sent again. A dropped connection is re-established with back-off (generation + 1,
 * observations ended) until {@link DesktopLimits.RECONNECT_GIVE_UP_MS}; a session closed by the
 * agent or the person never reconnects.
 */
export class DesktopSession {
  readonly id: string;
  readonly device: string;
  readonly fb = new Framebuffer();
  readonly observations = new ObservationStore();
  /**
   * For the panel (issue 16): `state` whenever {@link view} changes (connect, reconnect, pause,
   * control, display, close); `pointer` with the agent's last pointer position in framebuffer
   * pixels, or null when it no longer applies (a display, size or connection change).
   */
  readonly events = new EventEmitter<{ state: []; pointer: [{ x: number; y: number } | null] }>();
  private agentPointer: { x: number; y: number } | null = null;
  private client: RfbClient | null = null;
  private state: DesktopState = 'connecting';
  private closedReason: string | null = null;
  private generation = 0;
  private geometryEpoch = 0;
  private controlEnabled: boolean;
  private paused: boolean;
  private readonly authorization: Authorization;
  private displays: DisplayView[] = [];
  private selectedDisplay = 0;
  private connectedAt: number | null = null;
  private lastError: string | null = null;
  private xDisplay: string | null = null;
  private readonly pointer: PointerState = { x: 0, y: 0, buttons: 0 };
  private readonly keysDown = new Set<number>();
  private inputChain: Promise<unknown> = Promise.resolve();
  private reconnecting: Promise<void> | null = null;

  constructor(private readonly d: DesktopSessionDeps) {
    this.id = d.params.desktop_session_id;
    this.device = d.params.device;
    this.authorization = d.params.authorization;
    this.paused = d.params.paused;
    this.controlEnabled = d.params.authorization === 'control';
  }

  /** True until closed. */
  get isOpen(): boolean {
    return this.state !== 'closed';
  }

  /** Where the agent last put the pointer (framebuffer pixels), or null since a display, size or connection change. */
  get lastAgentPointer(): { x: number; y: number } | null {
    return this.agentPointer;
  }

  /** The connection generation (issue 15: + 1 on every reconnect). */
  get currentGeneration(): number {
    return this.generation;
  }

  /**
   * The first connection.
   * @throws HoldfastError `DESKTOP_UNAVAILABLE`, `DESKTOP_AUTH_FAILED` (the session is then closed).
   */
  async open(): Promise<void> {
    try {
      await this.connectOnce();
    } catch (err) {
      this.state = 'closed';
      this.closedReason = 'connect_failed';
      this.lastError = (err as Error).message;
      throw err;
    }
  }

  /** The session as the tools report it. */
  view(): DesktopSessionView {
    return {
      desktop_session_id: this.id,
      device: this.device,
      backend: this.d.params.backend.kind,
      state: this.state,
      closed_reason: this.closedReason,
      authorization: this.authorization,
      control_enabled: this.controlEnabled,
      paused: this.paused,
      generation: this.generation,
      geometry_epoch: this.geometryEpoch,
      source_size: this.fb.width > 0 ? { width: this.fb.width, height: this.fb.height } : null,
      displays: this.displays,
      selected_display: this.selectedDisplay,
      x_display: this.xDisplay,
      driver_pid: this.d.driverPid,
      connected_at: this.connectedAt,
      last_error: this.lastError,
    };
  }

  /**
   * A PNG of the selected display (or `rect` of it) and a new observation (issue 15 §5).
   * @throws HoldfastError `DESKTOP_UNAVAILABLE` (retryable) while reconnecting, `DESKTOP_NOT_FOUND`
   *   when closed, `BAD_REQUEST` for a rect outside the display, `TIMEOUT` when a refresh gets no frame.
   */
  async screenshot(p: ScreenshotParams): Promise<ScreenshotResult> {
    const client = this.requireConnected();
    if (Date.now() - this.fb.lastUpdateAt > DesktopLimits.FRAME_MAX_AGE_MS) {
      try {
        await client.refresh(DesktopLimits.CONNECT_TIMEOUT_MS);
      } catch (err) {
        if (err instanceof RfbConnectionLost) throw this.reconnectingError();
        throw err;
      }
    }
    const display = this.displays[this.selectedDisplay] ?? { index: 0, x: 0, y: 0, width: this.fb.width, height: this.fb.height };
    const src = sourceRect(display, p.rect);
    const frameId = this.fb.frameId;
    const frameAge = Math.max(0, Date.now() - this.fb.lastUpdateAt);
    const rgba = this.fb.crop(src);
    const maxEdge = Math.min(p.max_long_edge ?? DesktopLimits.SCREENSHOT_LONG_EDGE_DEFAULT_PX, DesktopLimits.SCREENSHOT_LONG_EDGE_MAX_PX);
    const img = await encodePng(rgba, { width: src.width, height: src.height }, maxEdge);
    const obs = this.observations.add({ sourceRect: src, imageSize: img.size, generation: this.generation, geometryEpoch: this.geometryEpoch, display: this.selectedDisplay, frameId });
    return { observation: this.observationView(obs, frameAge), image: img.png, mime_type: 'image/png' };
  }

  /**
   * Performs one action (issue 15 §6). With `operation_id`, a repeat answers the first outcome.
   * Refusals (nothing sent) are errors: `DESKTOP_PAUSED`, `CONTROL_NOT_GRANTED`,
   * `CONTROL_DISABLED`, `OBSERVATION_EXPIRED`, `BAD_REQUEST`, `DESKTOP_UNAVAILABLE`,
   * `IDEMPOTENCY_CONFLICT`.
   */
  async act(p: ActionParams): Promise<ActionResult> {
    const run = (): Promise<ActionResult> => this.perform(p);
    const { result, replayed } = p.operation_id ? await this.d.ledger.run(p.operation_id, actionDigest(p), run) : { result: await run(), replayed: false };
    const out: ActionResult = { ...result, replayed };
    if (p.observe_after !== false && this.state === 'connected') {
      try {
        if (!replayed && result.outcome === 'submitted') await this.settle();
        out.after = await this.screenshot({ desktop_session_id: this.id, ...(p.max_long_edge !== undefined ? { max_long_edge: p.max_long_edge } : {}) });
      } catch (err) {
        log(`screenshot after ${p.action} failed: ${(err as Error).message}`);
      }
    }
    return out;
  }

  /**
   * The agent's control switch (issue 15 §7), within what the device allows.
   * @throws HoldfastError `CONTROL_NOT_GRANTED` (view device), `DESKTOP_PAUSED` (turning it on while paused).
   */
  setControl(enabled: boolean): DesktopSessionView {
    this.requireOpen();
    if (enabled && this.authorization !== 'control') {
      throw new HoldfastError('CONTROL_NOT_GRANTED', `device ${this.device} is authorized for viewing only; the person can change that with \`holdfast desktop device add ${this.device} … --authorization control\``, { retryable: false });
    }
    if (enabled && this.paused) throw this.pausedError();
    if (!enabled) void this.releaseHeld();
    this.controlEnabled = enabled;
    this.events.emit('state');
    return this.view();
  }

  /**
   * Selects the display (monitor) screenshots and actions refer to; every observation ends.
   * @throws HoldfastError `BAD_REQUEST` for an index the desktop does not have.
   */
  selectDisplay(index: number): DesktopSessionView {
    this.requireOpen();
    if (!this.displays[index]) {
      throw new HoldfastError('BAD_REQUEST', `display ${index} does not exist; this desktop has ${this.displays.length} (0–${this.displays.length - 1})`, { retryable: false, details: { displays: this.displays } });
    }
    this.selectedDisplay = index;
    this.newEpoch(`display ${index} was selected`);
    this.events.emit('state');
    return this.view();
  }

  /** The person's pause: every input is refused until {@link resume}; held keys and buttons are released. */
  pause(): DesktopSessionView {
    this.requireOpen();
    this.paused = true;
    void this.releaseHeld();
    this.events.emit('state');
    return this.view();
  }

  /** Lifts the person's pause (control stays as the agent left it). */
  resume(): DesktopSessionView {
    this.requireOpen();
    this.paused = false;
    this.events.emit('state');
    return this.view();
  }

  /** Releases held keys and buttons, then closes for good (no reconnect). Idempotent. */
  async close(reason: string): Promise<DesktopSessionView> {
    if (this.state === 'closed') return this.view();
    this.state = 'closed';
    this.closedReason = reason;
    await this.releaseHeld().catch(() => undefined);
    this.client?.close();
    this.client = null;
    this.observations.endAll('the desktop session was closed');
    log(`desktop session ${this.id} (${this.device}) closed: ${reason}`);
    this.events.emit('state');
    return this.view();
  }

  // ---- connection ----------------------------------------------------------------------------

  private async endpoint(): Promise<{ endpoint: RfbEndpoint; password?: string | undefined; encodings: readonly number[] }> {
    const b = this.d.params.backend;
    if (b.kind === 'vnc') return { endpoint: { host: b.host, port: b.port }, password: b.password, encodings: REMOTE_ENCODINGS };
    const running = await this.d.virtual.ensure(b);
    this.xDisplay = running.xDisplay;
    return { endpoint: { path: running.socketPath }, encodings: LOCAL_ENCODINGS };
  }

  private async connectOnce(): Promise<void> {
    const ep = await this.endpoint();
    const client = await RfbClient.connect({
      endpoint: ep.endpoint,
      password: ep.password,
      encodings: ep.encodings,
      framebuffer: this.fb,
      timeoutMs: DesktopLimits.CONNECT_TIMEOUT_MS,
      minUpdateIntervalMs: DesktopLimits.MIN_UPDATE_INTERVAL_MS,
    });
    if (this.state === 'closed') {
      client.close();
      return;
    }
    this.client = client;
    this.generation += 1;
    this.pointer.buttons = 0;
    this.keysDown.clear();
    this.displays = client.screens;
    if (!this.displays[this.selectedDisplay]) this.selectedDisplay = 0;
    this.newEpoch('the desktop reconnected');
    this.state = 'connected';
    this.connectedAt = Date.now();
    this.lastError = null;
    client.on('screens', (screens) => {
      this.displays = screens;
      if (!this.displays[this.selectedDisplay]) this.selectedDisplay = 0;
      this.newEpoch('the display size or layout changed');
      this.events.emit('state');
    });
    client.once('close', (err) => this.onClientClose(client, err));
    this.events.emit('state');
    log(`desktop session ${this.id} connected to ${this.device} (RFB ${client.version}, ${this.fb.width}x${this.fb.height}, generation ${this.generation})`);
  }

  private onClientClose(client: RfbClient, err: Error | undefined): void {
    if (this.client !== client || this.state === 'closed') return;
    this.client = null;
    this.state = 'reconnecting';
    this.lastError = err?.message ?? 'the connection closed';
    this.observations.endAll('the connection dropped');
    this.events.emit('state');
    log(`desktop session ${this.id}: ${this.lastError}; reconnecting`);
    this.reconnecting ??= this.reconnectLoop().finally(() => {
      this.reconnecting = null;
    });
  }

  private async reconnectLoop(): Promise<void> {
    const giveUpAt = Date.now() + DesktopLimits.RECONNECT_GIVE_UP_MS;
    let wait: number = DesktopLimits.RECONNECT_FIRST_MS;
    while (this.state === 'reconnecting') {
      await delay(wait);
      if (this.state !== 'reconnecting') return;
      try {
        await this.connectOnce();
        return;
      } catch (err) {
        this.lastError = (err as Error).message;
        const fatal = err instanceof HoldfastError && err.code === 'DESKTOP_AUTH_FAILED';
        if (fatal || Date.now() > giveUpAt) {
          await this.close('lost');
          return;
        }
        wait = Math.min(wait * 2, DesktopLimits.RECONNECT_MAX_MS);
      }
    }
  }

  private newEpoch(reason: string): void {
    this.geometryEpoch += 1;
    this.observations.endAll(reason);
    if (this.agentPointer) {
      this.agentPointer = null;
      this.events.emit('pointer', null);
    }
  }

  // ---- input ---------------------------------------------------------------------------------

  private async perform(p: ActionParams): Promise<ActionResult> {
    this.requireConnected();
    if (this.paused) throw this.pausedError();
    if (this.authorization !== 'control') {
      throw new HoldfastError('CONTROL_NOT_GRANTED', `device ${this.device} is authorized for viewing only: it accepts no input`, { retryable: false });
    }
    if (!this.controlEnabled) {
      throw new HoldfastError('CONTROL_DISABLED', `control of ${this.device} is off; call desktop_set_control(enabled=true) first`, { retryable: false });
    }
    const obs = this.observations.get(p.observation_id);
    const at = p.x !== undefined || p.y !== undefined ? this.toSource(obs, p.x, p.y, 'x', 'y') : undefined;
    const to = p.to_x !== undefined || p.to_y !== undefined ? this.toSource(obs, p.to_x, p.to_y, 'to_x', 'to_y') : undefined;
    const steps = planAction({ action: p.action, at, to, button: p.button, dx: p.dx, dy: p.dy, key: p.key, keys: p.keys, text: p.text }, this.pointer, this.d.params.type_interval_ms ?? DesktopLimits.TYPE_KEY_INTERVAL_MS);
    const base = { action: p.action, operation_id: p.operation_id ?? null, replayed: false, source_point: at ?? null, source_to: to ?? null };
    const sent = await this.serialized(() => this.send(steps));
    if (sent === null) return { ...base, outcome: 'submitted', side_effect_possible: true, detail: null };
    return { ...base, outcome: 'outcome_unknown', side_effect_possible: true, detail: sent };
  }

  /** Maps image pixels of `obs` to framebuffer pixels (the centre of the covered source block). */
  private toSource(obs: Observation, x: number | undefined, y: number | undefined, xn: string, yn: string): { x: number; y: number } {
    if (x === undefined || y === undefined) throw new HoldfastError('BAD_REQUEST', `give both ${xn} and ${yn}`, { retryable: false });
    const { imageSize: img, sourceRect: src } = obs;
    if (x >= img.width || y >= img.height) {
      throw new HoldfastError('BAD_REQUEST', `(${xn}=${x}, ${yn}=${y}) is outside the ${img.width}x${img.height} image of ${obs.id}`, { retryable: false });
    }
    return {
      x: src.x + Math.min(src.width - 1, Math.floor(((x + 0.5) * src.width) / img.width)),
      y: src.y + Math.min(src.height - 1, Math.floor(((y + 0.5) * src.height) / img.height)),
    };
  }

  /** Runs input work one action at a time. */
  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.inputChain.then(fn, fn);
    this.inputChain = next.catch(() => undefined);
    return next;
  }

  /**
   * Sends the steps in order. Resolves null when every event is on the wire, else what went
   * wrong (connection dropped, timed out, paused mid-way): the outcome is then unknown.
   */
  private async send(steps: InputStep[]): Promise<string | null> {
    const pauses = steps.reduce((n, s) => n + (s.kind === 'pause' ? s.ms : 0), 0);
    const deadline = Date.now() + DesktopLimits.ACTION_SEND_TIMEOUT_MS + pauses;
    for (const s of steps) {
      if (s.kind === 'pause') {
        await delay(s.ms);
        continue;
      }
      const client = this.client;
      if (!client || !client.isOpen) return 'the connection dropped in the middle of the action; part of it may have arrived';
      if (this.paused) {
        await this.releaseHeld().catch(() => undefined);
        return 'the person paused the agent in the middle of the action; part of it was sent';
      }
      let write: Promise<void>;
      if (s.kind === 'pointer') {
        this.pointer.x = s.x;
        this.pointer.y = s.y;
        this.pointer.buttons = s.mask;
        write = client.pointer(s.x, s.y, s.mask);
        this.agentPointer = { x: s.x, y: s.y };
        this.events.emit('pointer', this.agentPointer);
      } else {
        if (s.down) this.keysDown.add(s.keysym);
        else this.keysDown.delete(s.keysym);
        write = client.key(s.keysym, s.down);
      }
      const outcome = await settleBy(write, deadline - Date.now());
      if (outcome === 'timeout') return 'sending the input timed out; part of it may have arrived';
      if (outcome instanceof Error) return `${outcome.message}; part of the action may have arrived`;
    }
    return null;
  }

  /** Waits until the screen shows the effect of an action (a frame after it, then a quiet spell), bounded. */
  private async settle(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const until = Date.now() + DesktopLimits.SETTLE_MAX_MS;
    const first = this.fb.frameId;
    if (!(await client.waitFrame(first, Math.min(DesktopLimits.SETTLE_MAX_MS, 500)))) return;
    for (;;) {
      const seen = this.fb.frameId;
      const left = until - Date.now();
      if (left <= 0) return;
      if (!(await client.waitFrame(seen, Math.min(left, DesktopLimits.SETTLE_QUIET_MS)))) return;
    }
  }

  /** Lets go of every held key and button (pause, disconnect, control off). */
  private async releaseHeld(): Promise<void> {
    const client = this.client;
    if (!client || !client.isOpen) {
      this.keysDown.clear();
      this.pointer.buttons = 0;
      return;
    }
    for (const k of [...this.keysDown].reverse()) {
      this.keysDown.delete(k);
      await client.key(k, false).catch(() => undefined);
    }
    if (this.pointer.buttons !== 0) {
      this.pointer.buttons = 0;
      await client.pointer(this.pointer.x, this.pointer.y, 0).catch(() => undefined);
    }
  }

  // ---- checks --------------------------------------------------------------------------------

  private requireOpen(): void {
    if (this.state === 'closed') {
      throw new HoldfastError('DESKTOP_NOT_FOUND', `desktop session ${this.id} is closed (${this.closedReason}); connect again with desktop_connect`, {
        retryable: false,
        details: { reason: 'closed', closed_reason: this.closedReason },
      });
    }
  }

  private requireConnected(): RfbClient {
    this.requireOpen();
    if (this.state !== 'connected' || !this.client) throw this.reconnectingError();
    return this.client;
  }

  private reconnectingError(): HoldfastError {
    return new HoldfastError('DESKTOP_UNAVAILABLE', `desktop session ${this.id} lost its connection to ${this.device} and is reconnecting${this.lastError ? ` (${this.lastError})` : ''}; retry shortly`, {
      retryable: true,
    });
  }

  private pausedError(): HoldfastError {
    return new HoldfastError('DESKTOP_PAUSED', `a person paused the agent on ${this.device}: input is refused until they run \`holdfast desktop resume ${this.id}\``, { retryable: false });
  }

  private observationView(o: Observation, frameAgeMs: number): ObservationView {
    return {
      observation_id: o.id,
      desktop_session_id: this.id,
      source_size: { width: this.fb.width, height: this.fb.height },
      source_rect: o.sourceRect,
      image_size: o.imageSize,
      generation: o.generation,
      geometry_epoch: o.geometryEpoch,
      frame_id: o.frameId,
      frame_age_ms: frameAgeMs,
      display: o.display,
      expires_at: o.expiresAt,
    };
  }
}

/** Resolves `'ok'`, the rejection error, or `'timeout'` after `ms`. */
async function settleBy(p: Promise<void>, ms: number): Promise<'ok' | 'timeout' | Error> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p.then(
        () => 'ok' as const,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      ),
      new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), Math.max(0, ms)))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
