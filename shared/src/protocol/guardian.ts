/**
 * The guardian protocol (daemon ↔ guardian, DESIGN §3, §5): small, plain TypeScript types with
 * hand-written guards (no zod in the guardian bundle), N-1 compatible because a guardian outlives
 * daemon upgrades. Every method and field carries the protocol version it appeared in; new fields
 * are additive and optional, and a daemon never sends a method the guardian's `features` lack.
 *
 * Since proto 1 unless noted.
 */

/** Method names. */
export const G = {
  status: 'g.status',
  exec: 'g.exec',
  wait: 'g.wait',
  input: 'g.input',
  read: 'g.read',
  snapshot: 'g.snapshot',
  spawn: 'g.spawn',
  stop: 'g.stop',
  resetShell: 'g.reset_shell',
  resize: 'g.resize',
  shutdown: 'g.shutdown',
  bye: 'g.bye',
  /** Upstream MCP servers (issue 13, feature `upstream.mcp`). */
  mcpStatus: 'g.mcp.status',
  mcpListTools: 'g.mcp.list_tools',
  mcpCallTool: 'g.mcp.call_tool',
  /** Secrets held in the guardian's memory (issue 12, feature `secrets`). */
  secretPut: 'g.secret.put',
  secretForget: 'g.secret.forget',
  secretList: 'g.secret.list',
  secretRequest: 'g.secret.request',
  secretWait: 'g.secret.wait',
  secretCancel: 'g.secret.cancel',
  /**
   * Relay to the session's desktop driver (issue 15, DESIGN §5.1): {@link DesktopRelayParams} →
   * the driver's answer (shared/protocol/desktop.ts). The guardian starts the driver on first use;
   * `d.status` and `d.shutdown` never start it. Feature `desktop`.
   */
  desktop: 'g.desktop',
} as const;

/** Events a guardian emits to its connected daemon. */
export const GEvents = {
  /** A foreground command or task finished: `CommandRecord | TaskRecord`. */
  done: 'g.done',
  /** The shell ended and the guardian is about to exit: `ExitRecord`. */
  exit: 'g.exit',
  /**
   * The foreground command's `awaitingInput` changed — set when it sits at a prompt (found by a
   * wait or by the guardian's own watch of a quiet command), cleared by input or new output:
   * `CommandRecord`. Older daemons ignore it (an unknown event).
   */
  awaiting: 'g.awaiting',
  /** Upstream progress of a `g.mcp.call_tool` that carried a `progressId`: `McpProgressEvent` (issue 13). */
  mcpProgress: 'g.mcp.progress',
} as const;

/**
 * Feature strings a guardian announces in its `welcome`. Issue 9: `status.wait_ready` (g.status
 * takes `waitReadyMs`), `stop.if_queued` (g.stop takes `ifQueued`). Issue 8: `snapshot.region`
 * (g.snapshot takes `from`).
 */
export const GUARDIAN_FEATURES = ['read.wait', 'exec.awaiting_input', 'spawn.argv', 'snapshot.text', 'sandbox', 'upstream.mcp', 'desktop', 'status.wait_ready', 'stop.if_queued', 'snapshot.region', 'secrets'] as const;

/** Feature of guardians that host upstream MCP servers (`g.mcp.*`, issue 13). */
export const UPSTREAM_MCP_FEATURE = 'upstream.mcp';

/**
 * Feature of guardians that hold secrets (issue 12, docs/secrets.md): `g.secret.*`, `secrets` on
 * `g.exec`/`g.spawn`, and `[secret:NAME]` redaction of every output they log. A daemon never sends
 * these to a guardian without it (an older session answers "open a new session").
 */
export const SECRETS_FEATURE = 'secrets';

/** Output sources: the PTY, or one stream of a task (`task:<task_id>:stdout|stderr`). */
export type OutputSource = 'pty' | `task:${string}:stdout` | `task:${string}:stderr`;

/**
 * How the guardian confines the shell and every task it starts (issue 17, docs/sandbox.md; feature
 * `sandbox`). The daemon decides (mode, network, paths); the guardian only builds the argv that
 * applies them: `bwrap … -- <shell>` or `<landlock helper> … -- <shell>`.
 */
export interface SandboxSpec {
  mode: 'bwrap' | 'landlock';
  network: 'on' | 'off';
  /** Absolute path of the mechanism: the bwrap binary or the Landlock helper. */
  program: string;
  /** Writable paths, absolute, the workspace first; missing ones are skipped. */
  writable: string[];
  /** Paths hidden behind an empty read-only folder (bwrap; Landlock cannot hide what it reads). */
  hidden: string[];
  /** Paths inside hidden ones that stay readable (the session's rc files). */
  visible: string[];
  /** Files kept read-only inside writable paths (bwrap): the project config. */
  readOnly: string[];
  /**
   * Set by the guardian, never by the daemon: the seccomp filter file (guardian/src/seccomp.ts)
   * that makes TIOCSTI fail inside (`bwrap --seccomp`, `holdfast-landlock --seccomp`).
   */
  seccomp?: string;
}

/**
 * Spawn specification the daemon writes (0600) before starting a guardian: `guardian --spec FILE`.
 * The guardian reads it once; everything it needs comes from here, never from newer code on disk.
 */
export interface GuardianSpec {
  schema: 1;
  gid: string;
  /** Initial working directory of the shell (the workspace root). */
  cwd: string;
  /** Shell to run; default bash (or `$SHELL` if bash is absent), DESIGN §5. */
  shell?: string;
  /** Extra environment for the shell and its tasks. */
  env: Record<string, string>;
  cols: number;
  rows: number;
  socketPath: string;
  manifestPath: string;
  sessionDir: string;
  /** Seconds without a daemon connection after which the guardian ends itself (DESIGN §4.4). */
  orphanTimeoutS: number;
  /** Build string of the daemon that spawned it (recorded in the manifest). */
  daemonBuild: string;
  /**
   * How long the user's rc files may take to reach a first prompt before the shell is restarted
   * without them, ms (issue 9; default `RC_PROMPT_TIMEOUT_MS` of the guardian, 6000). Optional.
   */
  rcTimeoutMs?: number;
  /** Confine the shell and tasks (issue 17); absent = unconfined. */
  sandbox?: SandboxSpec;
}

/**
 * Why the user's rc files were skipped (issue 9, item 1): the shell did not reach a first prompt
 * with them, so the guardian restarted it with a fallback.
 */
export interface RcSkipped {
  /** `timeout`: no prompt in time; `input`: a file waits for terminal input; `replaced`: a file
   * `exec`ed another program; `exited`: the shell ended before its first prompt. */
  reason: 'timeout' | 'input' | 'replaced' | 'exited';
  /** The file that was running (absolute path as sourced), or null when unknown. */
  file: string | null;
  /** What happened, for people: `did not reach a prompt within 6 s (still running: sleep 8)`. */
  detail: string;
  /** What the shell loaded instead: `login` = /etc/profile and the first of ~/.bash_profile,
   * ~/.bash_login, ~/.profile without the interactive rc files and `file`; `none` = nothing. */
  loaded: 'login' | 'none';
}

/** A shell the guardian restarted by itself (issue 9, item 3). */
export interface ShellRestart {
  reason: 'idle_logout';
  /** Epoch ms. */
  at: number;
  /** What happened and what it means, for people. */
  detail: string;
}

/** One sentence about skipped rc files, for the agent and the person (session open, execute, doctor). */
export function describeRcSkipped(r: RcSkipped): string {
  const what = r.file ? `${r.file} ${r.detail}` : `the shell's start-up files ${r.detail}`;
  const instead =
    r.loaded === 'login'
      ? 'the shell runs with /etc/profile and ~/.profile (or ~/.bash_profile) only — ~/.bashrc and what it sets up (PATH entries, aliases, tools such as nvm) are missing'
      : 'the shell runs without any start-up file (PATH is the daemon\'s)';
  return `rc files skipped: ${what}, so ${instead}. Fix ${r.file ?? 'the file'} (it must not wait for input, replace the shell or take long), then session(action="reset_shell").`;
}

/** Authoritative activity clock (DESIGN §4.3). Times are epoch milliseconds. */
export interface ActivityClock {
  createdAt: number;
  lastPtyActivityAt: number;
  lastInstructionAt: number;
  everExecuted: boolean;
  /** A foreground command or a task is running. */
  busy: boolean;
}

/** A foreground command run in the PTY (exact boundaries from shell-integration markers). */
export interface CommandRecord {
  kind: 'command';
  /** The daemon's execution task id, or `typed_<n>` for a command typed through `input`. */
  id: string;
  command: string;
  state: 'running' | 'exited';
  startedAt: number;
  endedAt?: number;
  exitCode?: number;
  /** PTY offset where the command's output begins (after the echo of the command line). */
  outputStart: number;
  /** PTY offset where its output ended (before the next prompt); absent while running. */
  outputEnd?: number;
  /** The command went quiet with a prompt-like last screen line (since proto 1, feature exec.awaiting_input). */
  awaitingInput?: boolean;
  /** The shell's working directory when the command ended (since proto 1, optional). */
  cwd?: string;
  /**
   * Not typed yet: the shell has not shown its prompt (a new session loading the user's files).
   * It is typed as soon as it does, unless stopped (issue 9, item 5; since proto 1, optional).
   */
  queued?: true;
  /**
   * The command ended without ever being typed: `cancelled` (the call that started it was
   * aborted first), `stopped` (g.stop), `shell_not_ready`, `shell_exited` (issue 9; optional).
   */
  notStarted?: 'cancelled' | 'stopped' | 'shell_not_ready' | 'shell_exited';
  /** Bytes of this command's output that could not be written to the log (a full disk); absent when none. */
  outputNotSaved?: number;
}

/** Offsets of one task stream: bytes ever written are [0, end); [start, end) is retained. */
export interface StreamRange {
  start: number;
  end: number;
}

/** A background task: its own process group, stdout/stderr piped to logs on disk. */
export interface TaskRecord {
  kind: 'task';
  id: string;
  /** Exact argv (no shell) or `["bash","-c",command]`. */
  argv: string[];
  /** The command text when started through a shell. */
  command?: string;
  cwd: string;
  pid: number;
  /** Process group id (== pid: the task leads its own group). */
  pgid: number;
  state: 'running' | 'exited';
  startedAt: number;
  endedAt?: number;
  exitCode?: number | null;
  signal?: string | null;
  /** Bytes of stdout and stderr that could not be written to the logs (a full disk); absent when none. */
  outputNotSaved?: number;
  stdout: StreamRange;
  stderr: StreamRange;
}

/** Answer of `g.status`. */
export interface GuardianStatus {
  gid: string;
  pid: number;
  startTime: string | null;
  build: string;
  proto: number;
  shell: {
    pid: number;
    alive: boolean;
    /** Increments on every `reset_shell`. */
    generation: number;
    /** The shell printed its first prompt. */
    ready: boolean;
    exitCode?: number | null;
    signal?: string | null;
    /**
     * The user's rc files never reached a prompt (broken or hanging), so the shell runs with a
     * fallback. Absent when false. Since proto 1 (additive).
     */
    rcFallback?: boolean;
    /** Why and what was skipped, with {@link rcFallback} (issue 9; since proto 1, additive). */
    rcSkipped?: RcSkipped;
    /** The guardian restarted the shell by itself (issue 9: idle logout; since proto 1, additive). */
    restarted?: ShellRestart;
  };
  /** Current working directory of the shell, if readable. */
  cwd: string | null;
  clock: ActivityClock;
  pty: StreamRange;
  foreground: CommandRecord | null;
  tasks: TaskRecord[];
  /** Daemon connections right now. */
  daemonConnections: number;
  /** The confinement the shell and tasks run under (issue 17, feature `sandbox`); absent = none. */
  sandbox?: { mode: SandboxSpec['mode']; network: SandboxSpec['network'] };
  /** The desktop driver child, when one runs (issue 15; absent from older guardians). */
  desktopDriver?: { pid: number } | null;
}

// ---- params and results -------------------------------------------------------------------------

/** `g.exec`: run `command` as the foreground command; wait up to `waitMs` for it to finish. */
export interface ExecParams {
  id: string;
  command: string;
  /**
   * The command as the agent sent it, when `command` wraps it (a one-off cwd or env): what the
   * screen, bash's history and the record show (issue 9, item 8; additive, default `command`).
   */
  display?: string;
  waitMs: number;
  /** Quiet time after which a prompt-like screen counts as awaiting input, ms (default 1500). */
  quietMs?: number;
  /**
   * Names of held secrets to set in this command's environment (feature `secrets`, issue 12): the
   * command runs in a subshell that reads each value from a one-shot pipe, so no value is typed
   * into the terminal or written to disk.
   */
  secrets?: string[];
}

/** `g.exec` result: the command record, or a refusal as a value. */
export type ExecResult =
  | {
      ok: true;
      cmd: CommandRecord;
      /** Something about the shell the caller has not been told yet: rc files skipped, shell restarted (issue 9; additive). */
      notice?: string;
    }
  | { ok: false; reason: 'command_already_running'; running: CommandRecord | null }
  | { ok: false; reason: 'shell_not_ready' | 'shell_exited'; running: null }
  /** The call was aborted before the command was typed: it never runs (issue 9, item 4). */
  | { ok: false; reason: 'cancelled'; running: null };

/** `g.wait`: wait up to `waitMs` for a command or task to finish (or await input). */
export interface WaitParams {
  id: string;
  waitMs: number;
  quietMs?: number;
}

/** Named keys accepted by `g.input` (DESIGN §5, issue 2). */
export const KEY_SEQUENCES: Readonly<Record<string, string>> = {
  Enter: '\r',
  Tab: '\t',
  Esc: '\x1b',
  Escape: '\x1b',
  Backspace: '\x7f',
  'Ctrl-C': '\x03',
  'Ctrl-D': '\x04',
  'Ctrl-Z': '\x1a',
  'Ctrl-L': '\x0c',
  'Ctrl-U': '\x15',
  Up: '\x1b[A',
  Down: '\x1b[B',
  Right: '\x1b[C',
  Left: '\x1b[D',
  Home: '\x1b[H',
  End: '\x1b[F',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
  Delete: '\x1b[3~',
};

/** `g.input`: text first, then the named keys, in order. */
export interface InputParams {
  text?: string;
  keys?: string[];
  /**
   * Send only while this command id is the running foreground command (checked in the guardian,
   * atomically with the write): input meant for a command that has just ended must never be
   * read by the idle shell as a command line. Without it the input is typed whatever runs.
   */
  forId?: string;
}

/** `g.input` answer: written, or refused because `forId` is not the running foreground command. */
export type InputResult = { ok: true } | { ok: false; reason: 'not_running'; running: CommandRecord | null };

/** `g.read`: bytes of a source from absolute offset `from` (long-poll up to `waitMs`). */
export interface ReadParams {
  src: OutputSource;
  from: number;
  max: number;
  waitMs?: number;
}

/**
 * `g.read` result (DESIGN §3): `data` starts at `offset`; `next` = offset + data.length.
 * Reading below the retained start returns from the start with `gap: true`.
 */
export interface ReadResult {
  data: Uint8Array;
  offset: number;
  next: number;
  gap: boolean;
  /** Total bytes ever written to the source. */
  end: number;
  /** The source's producer ended (shell or task exited). */
  exited: boolean;
  exit_code: number | null;
}

/**
 * `g.snapshot` params. `from` (feature `snapshot.region`, issue 8): show only what the output from
 * this PTY offset on draws — a command's own region of the screen (a full-screen program's whole
 * alternate screen), not earlier commands' output or the line that started it.
 */
export interface SnapshotParams {
  from?: number;
}

/** True when `p` is valid `g.snapshot` params. */
export function isSnapshotParams(p: unknown): p is SnapshotParams {
  if (p === undefined || p === null) return true;
  if (typeof p !== 'object') return false;
  const from = (p as { from?: unknown }).from;
  return from === undefined || (typeof from === 'number' && Number.isInteger(from) && from >= 0);
}

/** `g.snapshot`: the current screen from the headless terminal model. */
export interface SnapshotResult {
  cols: number;
  rows: number;
  /** Screen lines as plain text (trailing spaces trimmed). */
  lines: string[];
  /** Serialized screen with attributes (ANSI), to repaint a real terminal. */
  ansi: string;
  cursor: { x: number; y: number };
  /** PTY offset the screen reflects. */
  offset: number;
  /** `lines` are the region drawn from this offset on (`SnapshotParams.from`); absent: the whole screen. */
  region?: { from: number };
}

/** `g.spawn`: start a background task in its own process group. */
export interface SpawnParams {
  id: string;
  /** Exact argv (no shell). Exclusive with `command`. */
  argv?: string[];
  /** Run through `bash -c`. */
  command?: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Names of held secrets added to the task's environment (feature `secrets`, issue 12). */
  secrets?: string[];
}

/** `g.stop`: signal escalation of a task's process group or the foreground command. */
export interface StopParams {
  id: string;
  /**
   * Only end a foreground command that is still queued (never typed); a running one is left alone
   * and its record returned (issue 9, item 4: a dropped connection cancels what has not started;
   * feature `stop.if_queued`).
   */
  ifQueued?: boolean;
}

/** `g.status` params (optional). */
export interface StatusParams {
  /** Wait up to this long for the shell's first prompt before answering, ms (feature `status.wait_ready`). */
  waitReadyMs?: number;
}

export interface ResizeParams {
  cols: number;
  rows: number;
}

/** `g.desktop`: one driver method `m` (`d.*`) with its params `p`, relayed as is. */
export interface DesktopRelayParams {
  m: string;
  p: unknown;
}

/** `g.shutdown`: end everything (kill escalation, DESIGN §4.4), write exit.json, exit. */
export interface ShutdownParams {
  reason: 'closed' | 'killed' | 'reaped' | 'pruned' | 'reclaimed';
}

// ---- upstream MCP servers (issue 13, feature `upstream.mcp`) ------------------------------------

/**
 * An upstream MCP server as the daemon resolved it: `${VAR}` expanded, `cwd` absolute. The
 * guardian keeps one running instance per `name`; a request whose `hash` differs from the running
 * instance's (the entry changed) stops it and starts the new one.
 */
export interface UpstreamSpec {
  name: string;
  /** sha256 of the resolved spec. */
  hash: string;
  transport: 'stdio' | 'http';
  command?: string;
  args?: string[];
  /** Added to the guardian's environment for a stdio server. */
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** `legacy` (2025 `initialize`), `auto` (probe `server/discover` first) or `modern` (2026-07-28 only). */
  era: 'legacy' | 'auto' | 'modern';
}

/** What the guardian knows about one upstream server. Times are epoch ms. */
export interface UpstreamState {
  name: string;
  hash: string;
  transport: 'stdio' | 'http';
  /** `running`: initialized connection; `exited`: the process or connection ended; `failed`: start or initialize failed. */
  state: 'starting' | 'running' | 'exited' | 'failed';
  /** Process id of a stdio server (its own process group), else null. */
  pid: number | null;
  startedAt: number | null;
  /** Starts of this name so far in this session. */
  starts: number;
  protocolVersion?: string;
  serverInfo?: { name: string; version: string; title?: string };
  /** The server's `instructions`, capped at 2000 characters. */
  instructions?: string;
  /** How the last instance ended (exited or failed). */
  exit?: { code: number | null; signal: string | null; at: number; reason: string; stderrTail: string[] };
  /** Folder of the server's stderr log (segments, like task logs). */
  stderrLog?: string;
  /** `tools/call` requests in flight. */
  inflight: number;
}

/** `g.mcp.list_tools`: `tools/list` of the server (started if needed). */
export interface McpListToolsParams {
  server: UpstreamSpec;
}

/** `g.mcp.list_tools` answer: the upstream's tool objects as received (every page). */
export interface McpListToolsResult {
  tools: Record<string, unknown>[];
  upstream: UpstreamState;
}

/** `g.mcp.call_tool`: `tools/call` on the server's live connection; progress is forwarded when `progressId` is set. */
export interface McpCallToolParams {
  server: UpstreamSpec;
  tool: string;
  arguments: Record<string, unknown>;
  progressId?: string;
  /** Upstream request timeout, ms (reset by upstream progress). */
  timeoutMs?: number;
}

/** `g.mcp.call_tool` answer: the upstream `CallToolResult` unchanged. */
export interface McpCallToolResult {
  result: Record<string, unknown>;
  upstream: UpstreamState;
}

/** Data of a `g.mcp.progress` event (MCP `notifications/progress` fields). */
export interface McpProgressEvent {
  progressId: string;
  progress: number;
  total?: number;
  message?: string;
}

// ---- secrets (issue 12, feature `secrets`) -------------------------------------------------------

/** A secret's name: the environment variable it is given as. */
export const SECRET_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** A held secret as the guardian describes it: never its value. Times are epoch ms. */
export interface SecretInfo {
  name: string;
  purpose: string;
  providedAt: number;
  /** How the value arrived: `cli` (`holdfast secret provide`) or `page` (the loopback page). */
  via: 'cli' | 'page';
}

/** A secret the model asked for that the user has not given yet. */
export interface SecretRequestInfo {
  name: string;
  purpose: string;
  requestedAt: number;
  /** The loopback page of this request, while it can still be used. */
  page?: { expiresAt: number; state: 'open' | 'paired' | 'declined' };
}

/** `g.secret.put`: the value (UTF-8, no NUL) from the user. Answers `{replaced}`. */
export interface SecretPutParams {
  name: string;
  value: string;
  purpose?: string;
  via: SecretInfo['via'];
}

/** `g.secret.request`: records that the model asks for `name`; with `page`, opens a loopback page (one-time URL). */
export interface SecretRequestParams {
  name: string;
  purpose: string;
  page: boolean;
  /** Page lifetime, ms. */
  ttlMs: number;
}

/** `g.secret.request` answer: the request, and the page URL (token in the fragment) when one was opened. */
export interface SecretRequestResult {
  request: SecretRequestInfo;
  url?: string;
}

/** `g.secret.wait`: wait up to `waitMs` for `name` to be held (or its page to be declined). */
export interface SecretWaitParams {
  name: string;
  waitMs: number;
}

/** `g.secret.list` answer (and `g.secret.wait`'s, with `held` for the name waited on). */
export interface SecretListResult {
  secrets: SecretInfo[];
  requests: SecretRequestInfo[];
}

// ---- guards (the guardian validates every inbound request with these) --------------------------

const isStr = (v: unknown): v is string => typeof v === 'string';
const isNonNegInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isStrArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const isStrRecord = (v: unknown): v is Record<string, string> => isObj(v) && Object.values(v).every(isStr);

const isSecretNames = (v: unknown): boolean => v === undefined || (isStrArray(v) && v.every((n) => SECRET_NAME_RE.test(n)));
const isSecretName = (v: unknown): v is string => isStr(v) && SECRET_NAME_RE.test(v);

export function isExecParams(v: unknown): v is ExecParams {
  return (
    isObj(v) &&
    isStr(v.id) &&
    isStr(v.command) &&
    v.command.length > 0 &&
    (v.display === undefined || isStr(v.display)) &&
    isNonNegInt(v.waitMs) &&
    (v.quietMs === undefined || isNonNegInt(v.quietMs)) &&
    isSecretNames(v.secrets)
  );
}

export function isWaitParams(v: unknown): v is WaitParams {
  return isObj(v) && isStr(v.id) && isNonNegInt(v.waitMs) && (v.quietMs === undefined || isNonNegInt(v.quietMs));
}

export function isInputParams(v: unknown): v is InputParams {
  if (!isObj(v)) return false;
  if (v.text !== undefined && !isStr(v.text)) return false;
  if (v.forId !== undefined && !isStr(v.forId)) return false;
  if (v.keys !== undefined && !(isStrArray(v.keys) && v.keys.every((k) => k in KEY_SEQUENCES))) return false;
  return v.text !== undefined || v.keys !== undefined;
}

export function isOutputSource(v: unknown): v is OutputSource {
  return v === 'pty' || (isStr(v) && /^task:[A-Za-z0-9_]+:(stdout|stderr)$/.test(v));
}

export function isReadParams(v: unknown): v is ReadParams {
  return isObj(v) && isOutputSource(v.src) && isNonNegInt(v.from) && isNonNegInt(v.max) && v.max > 0 && (v.waitMs === undefined || isNonNegInt(v.waitMs));
}

export function isSpawnParams(v: unknown): v is SpawnParams {
  if (!isObj(v) || !isStr(v.id)) return false;
  const hasArgv = v.argv !== undefined;
  const hasCmd = v.command !== undefined;
  if (hasArgv === hasCmd) return false;
  if (hasArgv && !(isStrArray(v.argv) && v.argv.length > 0)) return false;
  if (hasCmd && !(isStr(v.command) && v.command.length > 0)) return false;
  if (v.cwd !== undefined && !isStr(v.cwd)) return false;
  if (v.env !== undefined && !isStrRecord(v.env)) return false;
  return isSecretNames(v.secrets);
}

export function isSecretPutParams(v: unknown): v is SecretPutParams {
  return isObj(v) && isSecretName(v.name) && isStr(v.value) && (v.purpose === undefined || isStr(v.purpose)) && (v.via === 'cli' || v.via === 'page');
}

export function isSecretRequestParams(v: unknown): v is SecretRequestParams {
  return isObj(v) && isSecretName(v.name) && isStr(v.purpose) && typeof v.page === 'boolean' && isNonNegInt(v.ttlMs);
}

export function isSecretWaitParams(v: unknown): v is SecretWaitParams {
  return isObj(v) && isSecretName(v.name) && isNonNegInt(v.waitMs);
}

/** `g.secret.forget` and `g.secret.cancel`: `{name}`. */
export function isSecretNameParams(v: unknown): v is { name: string } {
  return isObj(v) && isSecretName(v.name);
}

export function isStopParams(v: unknown): v is StopParams {
  return isObj(v) && isStr(v.id) && (v.ifQueued === undefined || typeof v.ifQueued === 'boolean');
}

export function isStatusParams(v: unknown): v is StatusParams {
  return v === null || v === undefined || (isObj(v) && (v.waitReadyMs === undefined || isNonNegInt(v.waitReadyMs)));
}

export function isResizeParams(v: unknown): v is ResizeParams {
  return isObj(v) && isNonNegInt(v.cols) && isNonNegInt(v.rows) && v.cols > 0 && v.rows > 0 && v.cols <= 1000 && v.rows <= 1000;
}

export function isShutdownParams(v: unknown): v is ShutdownParams {
  return isObj(v) && ['closed', 'killed', 'reaped', 'pruned', 'reclaimed'].includes(v.reason as string);
}

export function isSandboxSpec(v: unknown): v is SandboxSpec {
  return (
    isObj(v) &&
    (v.mode === 'bwrap' || v.mode === 'landlock') &&
    (v.network === 'on' || v.network === 'off') &&
    isStr(v.program) &&
    isStrArray(v.writable) &&
    isStrArray(v.hidden) &&
    isStrArray(v.visible) &&
    isStrArray(v.readOnly)
  );
}

/** A `g.desktop` relay: `m` is a `d.*` driver method (issue 15). */
export function isDesktopRelayParams(v: unknown): v is DesktopRelayParams {
  return isObj(v) && isStr(v.m) && /^d\.[a-z_]{1,40}$/.test(v.m);
}

export function isGuardianSpec(v: unknown): v is GuardianSpec {
  return (
    isObj(v) &&
    (v.sandbox === undefined || isSandboxSpec(v.sandbox)) &&
    v.schema === 1 &&
    isStr(v.gid) &&
    isStr(v.cwd) &&
    isStrRecord(v.env) &&
    isNonNegInt(v.cols) &&
    isNonNegInt(v.rows) &&
    isStr(v.socketPath) &&
    isStr(v.manifestPath) &&
    isStr(v.sessionDir) &&
    isNonNegInt(v.orphanTimeoutS) &&
    isStr(v.daemonBuild) &&
    (v.rcTimeoutMs === undefined || isNonNegInt(v.rcTimeoutMs))
  );
}

const UPSTREAM_NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;

export function isUpstreamSpec(v: unknown): v is UpstreamSpec {
  if (!isObj(v) || !isStr(v.name) || !UPSTREAM_NAME_RE.test(v.name) || !isStr(v.hash)) return false;
  if (!['legacy', 'auto', 'modern'].includes(v.era as string)) return false;
  if (v.transport === 'stdio') {
    return isStr(v.command) && v.command.length > 0 && (v.args === undefined || isStrArray(v.args)) && (v.env === undefined || isStrRecord(v.env)) && (v.cwd === undefined || isStr(v.cwd));
  }
  if (v.transport === 'http') return isStr(v.url) && (v.headers === undefined || isStrRecord(v.headers));
  return false;
}

export function isMcpListToolsParams(v: unknown): v is McpListToolsParams {
  return isObj(v) && isUpstreamSpec(v.server);
}

export function isMcpCallToolParams(v: unknown): v is McpCallToolParams {
  return (
    isObj(v) &&
    isUpstreamSpec(v.server) &&
    isStr(v.tool) &&
    v.tool.length > 0 &&
    isObj(v.arguments) &&
    (v.progressId === undefined || isStr(v.progressId)) &&
    (v.timeoutMs === undefined || isNonNegInt(v.timeoutMs))
  );
}
