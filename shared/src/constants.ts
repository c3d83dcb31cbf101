/**
 * Named limits and timings, grouped by purpose, with units in their names (house style).
 * Values that operators may change are defaults for config keys (see config/schema.ts).
 */

/** Wire limits (DESIGN §3). */
/**
 * Node options every launcher of the daemon passes before its entry script (adapter auto-start,
 * `holdfast daemon run`, a restart's successor, the systemd unit, the test harness). V8 reads
 * them only at start (`v8.setFlagsFromString` later has no effect on the heap's layout).
 * `--max-semi-space-size=1` (MiB): the daemon makes small short-lived objects per call, and V8's
 * 16 MiB default young generation kept ~14 MB more resident in an idle daemon (issue 10: idle RSS
 * 94–99 MB against 80–86 MB, three starts each).
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

export const WireLimits = {
  /** Largest guardian frame (and default of every framed socket), payload bytes. Larger payloads are paged by offset. */
  MAX_FRAME_BYTES: 8 * 1024 * 1024,
  /**
   * Largest frame on the control socket (adapter/CLI ↔ daemon), payload bytes (issue 18): a
   * `tool.call` carries an MCP request body of up to 64 MiB (`limits.max_body_bytes`; edits of
   * files up to FileLimits.EDIT_MAX_FILE_BYTES), plus room for the envelope.
   */
  MAX_CONTROL_FRAME_BYTES: 72 * 1024 * 1024,
  /** Largest chunk of output returned by one `read`, bytes (stays well under a frame). */
  MAX_READ_BYTES: 4 * 1024 * 1024,
} as const;

/** Protocol versions spoken on the Unix sockets (DESIGN §3). */
export const ProtocolVersions = {
  /** Control protocol (adapter/CLI ↔ daemon). Bumps only on breaking changes. */
  CONTROL: 1,
  /** Guardian protocol spoken by guardians built from this tree. */
  GUARDIAN: 1,
  /** Guardian protocol versions this daemon can drive (N-1 compatible, DESIGN §3). */
  GUARDIAN_SUPPORTED: [1] as readonly number[],
  /**
   * Desktop driver protocol (guardian ↔ its driver child, issue 15). A guardian only ever starts
   * the driver bundle built with it, so both ends always match; the number guards against a
   * mismatched bundle on disk.
   */
  DESKTOP_DRIVER: 1,
} as const;

/** Session lifetime defaults (DESIGN §4.3, §4.4). */
export const SessionDefaults = {
  /** Idle TTL of a session that never executed anything, seconds. */
  IDLE_TTL_NEVER_EXECUTED_S: 1800,
  /** Idle TTL of a session that executed something, seconds. */
  IDLE_TTL_EXECUTED_S: 86400,
  /** Guardians starting at once at most (issue 18, `sessions.spawn.concurrency`). */
  SPAWN_CONCURRENCY: 4,
  /** Opens waiting for a guardian start at most; beyond, `SPAWN_QUEUE_FULL` (`sessions.spawn.queue`). */
  SPAWN_QUEUE: 64,
  /** Live guardians at most. */
  MAX_LIVE_SESSIONS: 32,
  /** How often the reaper looks, milliseconds. */
  REAPER_INTERVAL_MS: 5000,
  /** A guardian with no daemon connection for this long ends itself, seconds. */
  ORPHAN_TIMEOUT_S: 3600,
  /** PTY size (DESIGN §5). */
  PTY_COLS: 200,
  PTY_ROWS: 50,
} as const;

/** Kill escalation graces (DESIGN §4.4): SIGHUP → SIGTERM → SIGKILL. */
export const KillGraces = {
  AFTER_SIGHUP_MS: 400,
  AFTER_SIGTERM_MS: 800,
  AFTER_SIGKILL_MS: 2000,
} as const;

/** Timeouts of the Unix-socket links. */
export const LinkTimeouts = {
  /** Connect + hello to a guardian during recovery, milliseconds (DESIGN §4.5). */
  GUARDIAN_CONNECT_MS: 5000,
  /** A spawned guardian must answer hello within this, milliseconds. */
  GUARDIAN_SPAWN_READY_MS: 15000,
  /** Default deadline of a request without its own, milliseconds. */
  DEFAULT_REQUEST_MS: 30000,
  /** Longest `waitMs` a long-poll read may ask for, milliseconds. */
  MAX_WAIT_MS: 120000,
  /** Adapter/CLI reconnect back-off: first and largest delay, milliseconds. */
  RECONNECT_FIRST_MS: 50,
  RECONNECT_MAX_MS: 1000,
  /** How long a client keeps retrying a daemon that is restarting, milliseconds. */
  RECONNECT_GIVE_UP_MS: 20000,
} as const;

/** Output retention (DESIGN §5). */
export const OutputLimits = {
  /** One on-disk PTY log segment, bytes; the PTY log keeps the newest PTY_LOG_SEGMENTS. */
  PTY_LOG_SEGMENT_BYTES: 16 * 1024 * 1024,
  PTY_LOG_SEGMENTS: 4,
  /** A task's on-disk log stops growing here and is flagged truncated, bytes (per stream). */
  TASK_LOG_MAX_BYTES: 32 * 1024 * 1024,
  /**
   * Large data in a result's text block at most, bytes: the text block is short and human-readable
   * (DESIGN §6.3) and large data is never mirrored — the whole value is in `structuredContent.data`
   * (field failure #16). Command output shows its tail, file content its head.
   */
  TEXT_BLOCK_MAX_BYTES: 16 * 1024,
  /** Text returned to the model per response, bytes (head dropped beyond). */
  MODEL_TEXT_MAX_BYTES: 64 * 1024,
} as const;

/**
 * MCP protocol revisions the adapter serves (DESIGN §6.1): 2026-07-28 (modern, stateless) and
 * the 2025 line (initialize, sessions). The adapter checks this against the SDK at start.
 */
export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** Workspace file tools (issue 4). Config keys (`limits.read_window_bytes`, `security.files.*`) override some. */
export const FileLimits = {
  /** `read(mode="full")` hard cap, bytes; larger files are read in windows. */
  READ_FULL_MAX_BYTES: 4 * 1024 * 1024,
  /** Reads per `read(items=[…])` call. */
  READ_ITEMS_MAX: 20,
  /** Named files per `read(view="context")` bundle. */
  CONTEXT_ITEMS_MAX: 100,
  /** Default `max_total_bytes` of a batch or context bundle, bytes. */
  BATCH_DEFAULT_TOTAL_BYTES: 4 * 1024 * 1024,
  /** Files up to this size are hashed (sha256) and scanned for line endings in full on a window read, bytes. */
  HASH_MAX_BYTES: 512 * 1024 * 1024,
  /** Bytes sniffed at the head of a file to tell text from binary (like git and ripgrep), bytes. */
  SNIFF_BYTES: 8192,
  /** Images are scaled to at most this many pixels on the long edge. */
  IMAGE_MAX_EDGE_PX: 2560,
  /** Largest image returned as MCP image content (after scaling/re-encoding), bytes. */
  IMAGE_MAX_BYTES: 2 * 1024 * 1024,
  /** Largest source image decoded for scaling, bytes. */
  IMAGE_SOURCE_MAX_BYTES: 64 * 1024 * 1024,
  /** Largest file an `edit` may load and rewrite, bytes. */
  EDIT_MAX_FILE_BYTES: 64 * 1024 * 1024,
  /** Failed matches in a row on one file in one session before `RECOVERY_EXHAUSTED`. */
  RECOVERY_MAX_FAILED_MATCHES: 3,
  /** Undo keeps the previous bytes of files up to this size, bytes (compressed in the DB). */
  UNDO_MAX_BYTES: 4 * 1024 * 1024,
  /** Diff text shown inline in an `edit` result, bytes; the rest pages through observe(view="diff"). */
  DIFF_PREVIEW_BYTES: 4096,
  /** Diff kept for paging per edit, bytes (beyond: truncated with a marker). */
  DIFF_STORE_MAX_BYTES: 8 * 1024 * 1024,
  /** Idempotency receipts are kept at least this long, milliseconds (issue 4: ≥ 30 min). */
  IDEMPOTENCY_TTL_MS: 24 * 60 * 60 * 1000,
  /** A `move_out` confirmation expires after this, milliseconds. */
  MOVE_CONFIRM_TTL_MS: 30 * 60 * 1000,
  /** Targets per `move_out` request; previews shown in its result. */
  MOVE_TARGETS_MAX: 100,
  MOVE_PREVIEWS_MAX: 20,
  /** Search: matching lines collected before paging switches to a sorted, bounded scan. */
  SEARCH_COLLECT_MAX: 10_000,
  /** Search: default and largest page, matching lines. */
  SEARCH_PAGE_DEFAULT: 50,
  SEARCH_PAGE_MAX: 500,
  /** Search: files larger than this are skipped by both engines, bytes. */
  SEARCH_MAX_FILE_BYTES: 50 * 1024 * 1024,
  /** Search: longest line text returned per match, characters. */
  SEARCH_LINE_MAX_CHARS: 500,
  /** List: default and largest page, entries. */
  LIST_PAGE_DEFAULT: 200,
  LIST_PAGE_MAX: 2000,
  /** List files: paths collected at most in one walk. */
  LIST_COLLECT_MAX: 200_000,
} as const;

/** Code map (issue 17, docs/code-map.md): `read(view="outline")` and `read(view="references")`. */
export const CodeMapLimits = {
  /** Larger files are skipped (generated bundles, data), bytes. */
  MAX_FILE_BYTES: 2 * 1024 * 1024,
  /** Files looked at in one workspace walk at most (the rest is reported as not scanned). */
  SCAN_FILES_MAX: 20_000,
  /** Definitions in the outline of one file at most. */
  OUTLINE_SYMBOLS_MAX: 250,
  /** Files per page of the workspace map, and symbols shown per file. */
  MAP_FILES_PER_PAGE: 20,
  MAP_SYMBOLS_PER_FILE: 64,
  /** Uses per page of `references`; definitions listed at most. */
  REFERENCES_USES_PER_PAGE: 200,
  REFERENCES_DEFINITIONS_MAX: 50,
  /** One result's text block plus structured data, bytes. */
  OUTPUT_MAX_BYTES: 44 * 1024,
  /** Longest signature or line text returned, characters. */
  LINE_MAX_CHARS: 160,
  /** Files whose parsed tags the worker keeps (keyed by path, size and mtime). */
  PARSE_CACHE_FILES: 5000,
} as const;

/** Work tracking (issue 11): plans, progress, artifacts, activity and the observe stream. */
export const WorkLimits = {
  /** Tasks per plan (create and replan together). */
  PLAN_TASKS_MAX: 200,
  /** Evidence items per `complete`. */
  EVIDENCE_ITEMS_MAX: 50,
  /** A repeat of the same progress status and text within this window adds no event, ms. */
  PROGRESS_REPEAT_WINDOW_MS: 10_000,
  /** Largest artifact (workspace file or inline content), bytes. */
  ARTIFACT_MAX_BYTES: 64 * 1024 * 1024,
  /** `artifact(read)` page: default and largest `limit`, source bytes. */
  ARTIFACT_PAGE_DEFAULT_BYTES: 1024 * 1024,
  ARTIFACT_PAGE_MAX_BYTES: 4 * 1024 * 1024,
  /** An artifact resource read returns at most this many source bytes (the rest pages through artifact(read)). */
  ARTIFACT_RESOURCE_MAX_BYTES: 4 * 1024 * 1024,
  /** `holdfast observe --history`: default and largest number of replayed events. */
  OBSERVE_HISTORY_DEFAULT: 100,
  OBSERVE_HISTORY_MAX: 100,
  /** Events read from the store per stream page. */
  OBSERVE_PAGE_EVENTS: 500,
  /** Command output lines an event carries: default (a tail) and with `--detail`. */
  OBSERVE_OUTPUT_LINES: 20,
  OBSERVE_OUTPUT_LINES_DETAIL: 500,
  /** Diff lines an edit event carries with `--diff preview`; `full` is capped at the second value. */
  OBSERVE_DIFF_PREVIEW_LINES: 40,
  OBSERVE_DIFF_FULL_LINES: 20_000,
} as const;

/**
 * Prefix of the `idempotency_key` the adapter mints for an unkeyed `execute run` so it can re-send
 * the call across a daemon restart (DESIGN §4.5). A replay under such a key is the adapter's own
 * retry: the agent never chose a key, so its answer carries no "same key as an earlier call" note.
 */
export const ADAPTER_RETRY_KEY_PREFIX = 'adapter-';

/** Operations (issue 12, docs/operations.md): `operation_batch` and `operation_manage`. */
export const OperationLimits = {
  /** Steps per batch. */
  STEPS_MAX: 32,
  /** Steps of one operation running at once. */
  CONCURRENCY_MAX: 8,
  /** Operation ids per `operation_manage(status|result)`. */
  IDS_MAX: 32,
  /** Default wait of `execution_mode: "sync"` and of `confirm`, ms. */
  DEFAULT_YIELD_MS: 10_000,
  /** How long `operation_manage(action="wait")` waits at most, ms (capped below the request timeout). */
  WAIT_MS: 25_000,
  /** One page of `result` (and the expanded results of `wait`), bytes of JSON. */
  RESULT_PAGE_BYTES: 48 * 1024,
  /** How often waiting steps are looked at (confirmed elsewhere, task still alive), ms. */
  WATCH_INTERVAL_MS: 500,
  /** `cancel` waits at most this long for running steps to stop, ms. */
  CANCEL_WAIT_MS: 20_000,
} as const;

/** Environment snapshots (issue 12): `environment` and `environment_read`. */
export const EnvironmentLimits = {
  /** All version probes of one reading end by this deadline (a hanging tool is killed), ms. */
  PROBE_DEADLINE_MS: 3500,
  /** A reading is reused this long by `environment_read(view="current")`, ms. */
  CACHE_MS: 60_000,
  /** Version output kept per tool, characters. */
  VERSION_MAX_CHARS: 200,
  /** Snapshots listed in a result at most. */
  LIST_MAX: 20,
} as const;

/** Secrets (issue 12, docs/secrets.md): held in the session guardian's memory only. */
export const SecretLimits = {
  /** Shortest and longest value, bytes (shorter values would redact ordinary output). */
  VALUE_MIN_BYTES: 4,
  VALUE_MAX_BYTES: 16 * 1024,
  /** Secrets one session holds at most. */
  PER_SESSION_MAX: 32,
  /** A provide page (URL elicitation) expires after this, ms. */
  PAGE_TTL_MS: 10 * 60 * 1000,
  /** `request` after the user accepted the page waits this long for the value, ms. */
  ACCEPTED_WAIT_MS: 60_000,
  /** A foreground command must open its secret pipe within this, ms. */
  FIFO_OPEN_TIMEOUT_MS: 30_000,
} as const;

/** Desktop control (issue 15, DESIGN §5.1): observations, screenshots, actions, the driver. */
export const DesktopLimits = {
  /** Observations alive at once per driver; the 33rd evicts the oldest. */
  MAX_OBSERVATIONS: 32,
  /** An observation accepts actions for this long, ms. */
  OBSERVATION_TTL_MS: 30_000,
  /** A frame older than this is refreshed (full update request) before a screenshot, ms. */
  FRAME_MAX_AGE_MS: 2000,
  /** Default and largest long edge of a screenshot, pixels. */
  SCREENSHOT_LONG_EDGE_DEFAULT_PX: 1280,
  SCREENSHOT_LONG_EDGE_MAX_PX: 2048,
  /** Largest PNG returned; larger images are shrunk further, bytes. */
  SCREENSHOT_MAX_BYTES: 2 * 1024 * 1024,
  /** `operation_id`s remembered: the last this many, each at least OPERATION_TTL_MS. */
  OPERATIONS_KEPT: 128,
  OPERATION_TTL_MS: 5 * 60_000,
  /** Longest `type_text`, characters. */
  TYPE_TEXT_MAX_CHARS: 2000,
  /** Keys in one `hotkey`. */
  HOTKEY_MAX_KEYS: 6,
  /** Wheel notches per `scroll` axis at most. */
  SCROLL_MAX_NOTCHES: 50,
  /** Pause between two typed characters (apps drop keys typed faster; xdotool uses 12), ms. */
  TYPE_KEY_INTERVAL_MS: 6,
  /** Pointer steps of a `drag` between press and release. */
  DRAG_STEPS: 12,
  /** An action whose input is not on the wire within this is `outcome_unknown`, ms. */
  ACTION_SEND_TIMEOUT_MS: 10_000,
  /** After an action, wait at most this for the screen to show its effect before `observe_after`, ms. */
  SETTLE_MAX_MS: 1500,
  /** …and call it settled after this long without a framebuffer update, ms. */
  SETTLE_QUIET_MS: 120,
  /** Longest `wait_ms` of `desktop_get_session(view_id)`, ms (issue 15: 0–25000, default 25000). */
  VIEW_WAIT_MAX_MS: 25_000,
  /** Views (desktop_open requests) kept per driver; unused ones expire after VIEW_TTL_MS. */
  MAX_VIEWS: 32,
  VIEW_TTL_MS: 30 * 60_000,
  /** Minimum time between two incremental update requests (bounds decoding of a busy screen), ms. */
  MIN_UPDATE_INTERVAL_MS: 40,
  /** VNC connect + handshake deadline, ms. */
  CONNECT_TIMEOUT_MS: 10_000,
  /** Reconnect back-off after a dropped connection: first and largest delay, ms; give up after. */
  RECONNECT_FIRST_MS: 250,
  RECONNECT_MAX_MS: 5000,
  RECONNECT_GIVE_UP_MS: 10 * 60_000,
  /** A private display's server must accept connections within this, ms. */
  VIRTUAL_START_MS: 15_000,
  /** Default private display size (issue 15). */
  VIRTUAL_WIDTH_DEFAULT: 1280,
  VIRTUAL_HEIGHT_DEFAULT: 800,
} as const;

/**
 * The desktop panel (issue 16; docs/desktop.md): the loopback page a session's desktop driver
 * serves, its video socket, the terminal viewer and the MCP Apps view.
 */
export const PanelLimits = {
  /** A bootstrap secret (URL fragment) works once, within this, ms. */
  BOOTSTRAP_TTL_MS: 60_000,
  /** A browser session (cookie) lasts at most this, ms. */
  BROWSER_SESSION_MAX_MS: 12 * 60 * 60_000,
  /** Browser sessions kept per panel; the oldest is dropped beyond this. */
  MAX_BROWSER_SESSIONS: 16,
  /** A video-socket ticket works once, within this, ms (bound to view, desktop session and generation). */
  TICKET_TTL_MS: 15_000,
  /** The ticket must be the first message within this after the socket opened, ms. */
  TICKET_FIRST_MESSAGE_MS: 5000,
  /** Video sockets per desktop session (browser pages, terminal viewers and apps together). */
  MAX_VIEWERS_PER_SESSION: 8,
  /** Least time between two frames to a page or app (≤ 25 frames/s), ms. */
  PAGE_FRAME_INTERVAL_MS: 40,
  /** Least time between two frames to a terminal viewer (8 frames/s), ms. */
  TERMINAL_FRAME_INTERVAL_MS: 125,
  /** JPEG quality of video frames (1–100). */
  JPEG_QUALITY: 75,
  /** A changed region larger than this share of the screen is sent as a whole frame. */
  FULL_FRAME_AREA_SHARE: 0.5,
  /** A viewer whose socket holds more unsent bytes than this is closed (it stopped reading), bytes. */
  MAX_BUFFERED_BYTES: 8 * 1024 * 1024,
  /** Largest request body the panel reads, bytes. */
  MAX_BODY_BYTES: 16 * 1024,
  /** An MCP Apps view that has not reported ready within this shows `not_confirmed`, ms. */
  APP_CONFIRM_MS: 10_000,
  /** Terminal viewer: cells at most, and the cell width/height ratio range and default. */
  TERMINAL_MAX_COLS: 160,
  TERMINAL_MAX_ROWS: 60,
  CELL_ASPECT_MIN: 0.2,
  CELL_ASPECT_MAX: 2,
  CELL_ASPECT_DEFAULT: 0.5,
} as const;
