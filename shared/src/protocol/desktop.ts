/**
 * The desktop driver protocol (issue 15, DESIGN §5.1): what the daemon asks a session's desktop
 * driver through the guardian's `g.desktop` relay, and what the guardian itself asks its driver.
 * Plain types with hand-written guards (no zod: the driver is bundled like the guardian).
 *
 * Field names are snake_case and follow the desktop tools' contract (issue 15), so a driver
 * answer becomes a tool's `data` without renaming. Coordinates and sizes are pixels; times are
 * epoch milliseconds; `*_ms` are durations.
 *
 * Since driver proto 1 unless noted. New methods and fields are additive; a driver answers a
 * method it does not know with `UNKNOWN_METHOD`.
 */

/** Driver methods. */
export const D = {
  /** Guardian ↔ driver handshake: `{proto}` → `{proto, build, pid}`. */
  hello: 'd.hello',
  /** `{}` → {@link DriverStatus}. */
  status: 'd.status',
  /** {@link ConnectParams} → {@link DesktopSessionView} once connected (or failed with an error). */
  connect: 'd.connect',
  /** `{desktop_session_id}` → {@link DesktopSessionView} (also of a recently closed one). */
  session: 'd.session',
  /** {@link ScreenshotParams} → {@link ScreenshotResult}. */
  screenshot: 'd.screenshot',
  /** {@link ActionParams} → {@link ActionResult}. */
  action: 'd.action',
  /** `{desktop_session_id, enabled}` → {@link DesktopSessionView}. */
  setControl: 'd.set_control',
  /** `{desktop_session_id, display}` → {@link DesktopSessionView} (observations end). */
  selectDisplay: 'd.select_display',
  /** `{desktop_session_id, reason}` → {@link DesktopSessionView} (state `closed`). */
  disconnect: 'd.disconnect',
  /** The person's pause lock: `{desktop_session_id}` → {@link DesktopSessionView}. */
  pause: 'd.pause',
  resume: 'd.resume',
  /**
   * {@link OpenViewParams} → {@link ViewView}: a person is asked to pick a desktop. With `panel`
   * (issue 16) the driver starts its panel server and presents the view (a browser, the terminal
   * viewer's command, or an MCP Apps view awaiting `d.app_ready`).
   */
  openView: 'd.open_view',
  /** `{view_id, wait_ms}` → {@link ViewView}, waiting while the view is `waiting`. */
  waitView: 'd.wait_view',
  /** `{view_id, desktop_session_id}` → {@link ViewView}: the person connected a desktop for it. */
  bindView: 'd.bind_view',
  /** `{view_id}` → {@link ViewView} (state `closed`). */
  closeView: 'd.close_view',
  /**
   * `{view_id, panel}` → `{url}` (issue 16): the view's page URL with a fresh one-time bootstrap
   * secret in its fragment, for the person's own terminal (`holdfast desktop pair`) only.
   */
  panelLink: 'd.panel_link',
  /** {@link PanelTicketParams} → {@link PanelTicket} (issue 16): a one-time video-socket ticket. */
  panelTicket: 'd.panel_ticket',
  /** `{view_id, panel}` → {@link OpenBrowserResult} (issue 16): opens the view's page in a browser. */
  openBrowser: 'd.open_browser',
  /** `{view_id}` → {@link ViewView} (issue 16): the MCP Apps view of `view_id` is displayed. */
  appReady: 'd.app_ready',
  /** {@link CaptureParams} → {@link CaptureResult}: one image of an X display. */
  capture: 'd.capture',
  /** `{}` → `{ok: true}`: close every connection and private display, then exit. */
  shutdown: 'd.shutdown',
} as const;

/** Events the driver emits to its guardian. */
export const DEvents = {
  /**
   * The private display started, moved or stopped: {@link DisplayEnvEvent}. The guardian gives the
   * session's shell and tasks `DISPLAY` and `XAUTHORITY` (or takes them away).
   */
  display: 'd.display',
} as const;

/** Payload of {@link DEvents.display}: the variables to set, or null to restore the original ones. */
export type DisplayEnvEvent = { DISPLAY: string; XAUTHORITY: string } | null;

export type Authorization = 'view' | 'control';
export type VirtualServer = 'auto' | 'xtigervnc' | 'xvfb';

export interface Size {
  width: number;
  height: number;
}

export interface Rect extends Size {
  x: number;
  y: number;
}

/** A remote machine's VNC server. The password is kept in the driver's memory only. */
export interface VncBackendSpec {
  kind: 'vnc';
  host: string;
  port: number;
  password?: string;
}

/** The session's private display (started by the driver on first use, kept until the session ends). */
export interface VirtualBackendSpec {
  kind: 'virtual';
  width: number;
  height: number;
  /** `auto`: Xtigervnc when installed, else Xvfb + x11vnc. */
  server: VirtualServer;
  /** Program run on the display as its window manager (`''` for none). */
  window_manager: string;
}

export type BackendSpec = VncBackendSpec | VirtualBackendSpec;

/** `d.connect`. */
export interface ConnectParams {
  desktop_session_id: string;
  /** Device alias from the device book, or `virtual`. */
  device: string;
  backend: BackendSpec;
  authorization: Authorization;
  /** Start paused (the person's pause outlives a reconnect). */
  paused: boolean;
  /** Pause between two typed characters, ms (default DesktopLimits.TYPE_KEY_INTERVAL_MS). */
  type_interval_ms?: number;
}

/** One monitor of a desktop (RFB ExtendedDesktopSize screens; the whole framebuffer otherwise). */
export interface DisplayView extends Rect {
  index: number;
}

export type DesktopState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** A desktop session as the driver reports it (the `data` of `desktop_get_session`). */
export interface DesktopSessionView {
  desktop_session_id: string;
  device: string;
  backend: 'vnc' | 'virtual';
  state: DesktopState;
  /** Why it closed: `disconnected` (agent), `closed_by_person`, `session_ended`, `lost` (gave up reconnecting). */
  closed_reason: string | null;
  authorization: Authorization;
  control_enabled: boolean;
  paused: boolean;
  /** Increments on every (re)connect of the RFB connection. */
  generation: number;
  /** Increments whenever observations end at once (display switch, reconnect, size change). */
  geometry_epoch: number;
  /** Framebuffer size, or null before the first connect. */
  source_size: Size | null;
  displays: DisplayView[];
  selected_display: number;
  /** X display name of a private display (`:12`), else null. */
  x_display: string | null;
  driver_pid: number;
  connected_at: number | null;
  last_error: string | null;
}

/** `d.screenshot`. */
export interface ScreenshotParams {
  desktop_session_id: string;
  /** Long edge of the image, px (default 1280, at most 2048; never upscaled). */
  max_long_edge?: number;
  /** Source-pixel rectangle of the selected display (default: all of it). */
  rect?: Rect;
}

/** What an observation is: the mapping from image pixels back to source pixels. */
export interface ObservationView {
  observation_id: string;
  desktop_session_id: string;
  source_size: Size;
  /** In framebuffer pixels (the selected display's origin included). */
  source_rect: Rect;
  image_size: Size;
  generation: number;
  geometry_epoch: number;
  frame_id: number;
  frame_age_ms: number;
  display: number;
  expires_at: number;
}

export interface ScreenshotResult {
  observation: ObservationView;
  /** PNG bytes. */
  image: Uint8Array;
  mime_type: 'image/png';
}

export const DESKTOP_ACTIONS = ['move', 'click', 'double_click', 'scroll', 'drag', 'key_press', 'hotkey', 'type_text'] as const;
export type DesktopActionName = (typeof DESKTOP_ACTIONS)[number];
export const MOUSE_BUTTONS = ['left', 'middle', 'right'] as const;
export type MouseButton = (typeof MOUSE_BUTTONS)[number];

/** `d.action` (issue 15 §6): coordinates are image pixels of `observation_id`. */
export interface ActionParams {
  desktop_session_id: string;
  observation_id: string;
  action: DesktopActionName;
  x?: number;
  y?: number;
  button?: MouseButton;
  to_x?: number;
  to_y?: number;
  dx?: number;
  dy?: number;
  key?: string;
  keys?: string[];
  text?: string;
  operation_id?: string;
  /** Add a fresh screenshot after the action (default true). */
  observe_after?: boolean;
  /** Long edge of that screenshot. */
  max_long_edge?: number;
}

/**
 * `d.action` answer. `submitted`: every input event is on the wire (RFB has no acknowledgement).
 * `outcome_unknown`: the connection dropped or timed out mid-send; some input may have arrived
 * (`side_effect_possible`), and holdfast never sends it again.
 */
export interface ActionResult {
  outcome: 'submitted' | 'outcome_unknown';
  side_effect_possible: boolean;
  action: DesktopActionName;
  operation_id: string | null;
  /** The first outcome of this `operation_id`, answered again without sending anything. */
  replayed: boolean;
  /** Where the pointer went, framebuffer pixels. */
  source_point: { x: number; y: number } | null;
  source_to: { x: number; y: number } | null;
  /** What went wrong for `outcome_unknown`. */
  detail: string | null;
  /** The fresh screenshot (`observe_after`), when one could be taken. */
  after?: ScreenshotResult;
}

/**
 * How a view is put in front of the person (issue 16): an MCP Apps view in the client, the
 * loopback page in a browser, the terminal viewer's command, or nothing but the pairing command.
 */
export type PanelMode = 'apps' | 'browser' | 'terminal' | 'off';
export const PANEL_MODES: readonly PanelMode[] = ['apps', 'browser', 'terminal', 'off'];

/** Whether an MCP Apps view reported ready (issue 16: `not_confirmed` after 10 s without it). */
export type AppState = 'pending' | 'confirmed' | 'not_confirmed';

/** A person's desktop pick requested by `desktop_open` (issue 15; the panel of issue 16 serves it). */
export interface ViewView {
  view_id: string;
  state: 'waiting' | 'connected' | 'closed';
  /** The device the agent asked for, if any. */
  device: string | null;
  created_at: number;
  desktop_session_id: string | null;
  wait_timed_out?: boolean;
  /** How the view was presented (issue 16; absent from issue-15 drivers). */
  panel?: PanelMode;
  /** The page URL without any secret (issue 16), or null before the panel server runs. */
  panel_url?: string | null;
  /** Whether a browser was started for it (null when none was tried). */
  browser_opened?: boolean | null;
  /** MCP Apps views only. */
  app_state?: AppState | null;
}

/** What the driver needs to present a view (issue 16), sent by the daemon with `d.open_view` and the panel calls. */
export interface PanelRequest {
  mode: PanelMode;
  /** The daemon's control socket: the panel forwards the person's choices there (device book, pause lock). */
  control_socket: string;
  /** Command that opens a URL for the person (the URL is appended); empty = `xdg-open`. */
  browser: string[];
}

/** `d.open_view`. */
export interface OpenViewParams {
  device: string | null;
  panel?: PanelRequest;
}

/** `d.panel_ticket`: a ticket for the terminal viewer (raw RGB) or an MCP Apps view (JPEG). */
export interface PanelTicketParams {
  view_id: string;
  kind: 'terminal' | 'app';
  panel: PanelRequest;
}

/**
 * A one-time video-socket ticket (issue 16 §3): send `{"ticket": …}` as the first message on
 * `ws_url` within {@link PanelLimits.TICKET_FIRST_MESSAGE_MS}; valid once, until `expires_at`, for
 * this view, desktop session and connection generation.
 */
export interface PanelTicket {
  ws_url: string;
  ticket: string;
  expires_at: number;
  view_id: string;
  desktop_session_id: string;
  generation: number;
}

/** `d.open_browser` answer. */
export interface OpenBrowserResult {
  opened: boolean;
  panel_url: string;
  /** Why no browser could be opened. */
  detail: string | null;
}

/** One video socket of the panel (`d.status`). */
export interface ViewerStatus {
  kind: 'page' | 'app' | 'terminal';
  desktop_session_id: string;
  frames_sent: number;
  bytes_sent: number;
  /** A frame was sent and its acknowledgement has not arrived (at most one per viewer). */
  awaiting_ack: boolean;
  /** Bytes the socket holds unsent. */
  buffered_bytes: number;
}

/** The panel server of a driver (`d.status`), or null before the first view asked for one. */
export interface PanelStatus {
  port: number;
  browser_sessions: number;
  viewers: ViewerStatus[];
}

/** `d.capture`: one image of an X display the person allowed (`screenshot_capture`). */
export interface CaptureParams {
  /** X display name, e.g. `:0`. */
  display: string;
  /** Xauthority file for it (default: the driver's environment). */
  xauthority?: string;
  max_long_edge?: number;
  rect?: Rect;
}

export interface CaptureResult {
  source_size: Size;
  source_rect: Rect;
  image_size: Size;
  image: Uint8Array;
  mime_type: 'image/png';
}

/** `d.status`. */
export interface DriverStatus {
  pid: number;
  build: string;
  proto: number;
  started_at: number;
  sessions: DesktopSessionView[];
  views: ViewView[];
  /** Private display of the session, if started. */
  virtual: { x_display: string; pid: number; server: 'xtigervnc' | 'xvfb' } | null;
  /** The panel server (issue 16). */
  panel?: PanelStatus | null;
}

// ---- guards (the driver validates every request with these) -------------------------------------

const isStr = (v: unknown): v is string => typeof v === 'string';
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const optInt = (v: unknown, min: number, max: number): boolean => v === undefined || isInt(v, min, max);

export function isRect(v: unknown): v is Rect {
  return isObj(v) && isInt(v.x, 0, 65535) && isInt(v.y, 0, 65535) && isInt(v.width, 1, 65535) && isInt(v.height, 1, 65535);
}

export function isBackendSpec(v: unknown): v is BackendSpec {
  if (!isObj(v)) return false;
  if (v.kind === 'vnc') return isStr(v.host) && v.host.length > 0 && isInt(v.port, 1, 65535) && (v.password === undefined || isStr(v.password));
  if (v.kind === 'virtual') {
    return isInt(v.width, 64, 8192) && isInt(v.height, 64, 8192) && ['auto', 'xtigervnc', 'xvfb'].includes(v.server as string) && isStr(v.window_manager);
  }
  return false;
}

export function isConnectParams(v: unknown): v is ConnectParams {
  return (
    isObj(v) &&
    isStr(v.desktop_session_id) &&
    isStr(v.device) &&
    isBackendSpec(v.backend) &&
    (v.authorization === 'view' || v.authorization === 'control') &&
    typeof v.paused === 'boolean' &&
    optInt(v.type_interval_ms, 0, 1000)
  );
}

export function isScreenshotParams(v: unknown): v is ScreenshotParams {
  return isObj(v) && isStr(v.desktop_session_id) && optInt(v.max_long_edge, 64, 8192) && (v.rect === undefined || isRect(v.rect));
}

/** The first problem of `d.action` params (naming the field), or null when they are valid. */
export function actionParamsProblem(v: unknown): string | null {
  if (!isObj(v)) return 'params must be an object';
  if (!isStr(v.desktop_session_id)) return 'desktop_session_id is required';
  if (!isStr(v.observation_id)) return 'observation_id is required';
  if (!(DESKTOP_ACTIONS as readonly string[]).includes(v.action as string)) return `action must be one of ${DESKTOP_ACTIONS.join(', ')}`;
  for (const k of ['x', 'y', 'to_x', 'to_y']) if (!optInt(v[k], 0, 65535)) return `${k} must be a whole number of image pixels ≥ 0`;
  for (const k of ['dx', 'dy']) if (!optInt(v[k], -1000, 1000)) return `${k} must be a whole number of wheel notches`;
  if (v.button !== undefined && !(MOUSE_BUTTONS as readonly string[]).includes(v.button as string)) return `button must be one of ${MOUSE_BUTTONS.join(', ')}`;
  if (v.key !== undefined && !isStr(v.key)) return 'key must be a key name';
  if (v.keys !== undefined && !(Array.isArray(v.keys) && v.keys.every(isStr))) return 'keys must be a list of key names';
  if (v.text !== undefined && !isStr(v.text)) return 'text must be a string';
  if (v.operation_id !== undefined && !(isStr(v.operation_id) && v.operation_id.length > 0 && v.operation_id.length <= 128)) return 'operation_id must be 1–128 characters';
  if (v.observe_after !== undefined && typeof v.observe_after !== 'boolean') return 'observe_after must be true or false';
  if (!optInt(v.max_long_edge, 64, 8192)) return 'max_long_edge must be a whole number of pixels, 64–2048';
  return null;
}

export function isActionParams(v: unknown): v is ActionParams {
  return actionParamsProblem(v) === null;
}

export function isCaptureParams(v: unknown): v is CaptureParams {
  return isObj(v) && isStr(v.display) && /^:\d{1,4}(\.\d{1,2})?$/.test(v.display) && (v.xauthority === undefined || isStr(v.xauthority)) && optInt(v.max_long_edge, 16, 8192) && (v.rect === undefined || isRect(v.rect));
}

/** True for a {@link PanelRequest}. */
export function isPanelRequest(v: unknown): v is PanelRequest {
  return isObj(v) && (PANEL_MODES as readonly unknown[]).includes(v.mode) && isStr(v.control_socket) && Array.isArray(v.browser) && v.browser.every(isStr);
}
