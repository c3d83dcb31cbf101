/**
 * The one error-code union of holdfast (DESIGN §3). Every error that crosses a process boundary
 * carries one of these codes, a human message that says what to do next, and whether retrying the
 * same request can help. Expected outcomes (a session that already exists, a command that is
 * still running, a child that exited) are values, never errors.
 */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNKNOWN_METHOD',
  'PROTOCOL_VERSION',
  'FRAME_TOO_LARGE',
  'BAD_FRAME',
  'NOT_CONNECTED',
  'SESSION_NOT_FOUND',
  'SESSION_EXITED',
  'WORKSPACE_NOT_FOUND',
  'QUOTA_EXCEEDED',
  'SPAWN_FAILED',
  'GUARDIAN_UNAVAILABLE',
  'DAEMON_DRAINING',
  'DAEMON_UNAVAILABLE',
  'TIMEOUT',
  'CANCELLED',
  'POLICY_DENIED',
  'TOOL_NOT_ALLOWED',
  'SHA_MISMATCH',
  'COMMAND_ALREADY_RUNNING',
  'TASK_NOT_FOUND',
  // Workspace files (issue 4): read, edit, move_out.
  'PATH_OUTSIDE_WORKSPACE',
  'PATH_NOT_FOUND',
  'PATH_EXISTS',
  'UNSUPPORTED_FILE_TYPE',
  'FILE_TOO_LARGE',
  'READ_REQUIRED',
  'MATCH_NOT_FOUND',
  'MATCH_AMBIGUOUS',
  'RECOVERY_EXHAUSTED',
  'FORMAT_MISMATCH',
  'LIMIT_EXCEEDED',
  'IDEMPOTENCY_CONFLICT',
  'EDIT_NOT_FOUND',
  'UNDO_UNAVAILABLE',
  'CONFIRMATION_NOT_FOUND',
  'CONFIRMATION_EXPIRED',
  'MANIFEST_CHANGED',
  'TRASH_FAILED',
  // Session roles (issue 14): the caller can see the session but its role does not allow this.
  'ROLE_REQUIRED',
  // Code map and sandbox (issue 17).
  'CURSOR_STALE',
  'SANDBOX_UNAVAILABLE',
  // Extensions (issue 13): skills and upstream MCP servers behind skill_tool and mcp_tool.
  'EXTENSION_NOT_FOUND',
  'NEEDS_APPROVAL',
  'UPSTREAM_EXITED',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  'SCHEMA_REVISION_CHANGED',
  'SKILL_REVISION_CHANGED',
  // Work tracking (issue 11): plan, progress, artifact, activity.
  'PLAN_NOT_FOUND',
  'PLAN_TASK_NOT_FOUND',
  'PLAN_INVALID',
  'PLAN_REVISION_CONFLICT',
  'PLAN_DEPENDENCIES_OPEN',
  'PLAN_STATE_CONFLICT',
  'PLAN_NOT_DELIVERABLE',
  'EVIDENCE_INVALID',
  'ARTIFACT_NOT_FOUND',
  // Operations, environment snapshots and secrets (issue 12).
  'OPERATION_NOT_FOUND',
  'OPERATION_RESULT_EXPIRED',
  'SNAPSHOT_NOT_FOUND',
  'SECRET_NOT_FOUND',
  'SECRET_DECLINED',
  // Desktop control (issue 15).
  'KEYRING_UNAVAILABLE',
  'CREDENTIAL_MISSING',
  'DEVICE_NOT_FOUND',
  'DEVICE_BUSY',
  'DESKTOP_NOT_FOUND',
  'DESKTOP_UNAVAILABLE',
  'DESKTOP_AUTH_FAILED',
  'DESKTOP_PAUSED',
  'CONTROL_NOT_GRANTED',
  'CONTROL_DISABLED',
  'OBSERVATION_EXPIRED',
  // Issue 9: a file with other hard links that cannot be written in place (edit says so before writing).
  'HARD_LINKED',
  'INTERNAL',
  // Desktop panel (issue 16).
  'VIEW_REQUIRES_TERMINAL',
  'PANEL_UNAVAILABLE',
  // Security hardening (issue 18): bounded guardian starts, a full disk.
  'SPAWN_QUEUE_FULL',
  'DISK_FULL',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Wire shape of an error (the `e` of an `err` frame, DESIGN §3). */
export interface WireError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

/** Codes a caller may retry unchanged (after back-off) unless the thrower says otherwise. */
const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'DAEMON_DRAINING',
  'DAEMON_UNAVAILABLE',
  'GUARDIAN_UNAVAILABLE',
  'NOT_CONNECTED',
  'TIMEOUT',
  'SPAWN_QUEUE_FULL',
]);

/**
 * An error with a holdfast {@link ErrorCode}. Thrown inside a process, sent as {@link WireError}
 * between processes (see {@link toWireError} / {@link fromWireError}).
 */
export class HoldfastError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: { retryable?: boolean; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'HoldfastError';
    this.code = code;
    this.retryable = opts.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    if (opts.details !== undefined) this.details = opts.details;
  }
}

/** True when `value` is a string of {@link ERROR_CODES}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Maps any thrown value to its wire shape; unknown exceptions become `INTERNAL`. */
export function toWireError(err: unknown): WireError {
  if (err instanceof HoldfastError) {
    const w: WireError = { code: err.code, message: err.message, retryable: err.retryable };
    if (err.details !== undefined) w.details = err.details;
    return w;
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message, retryable: false };
}

/** Rebuilds a {@link HoldfastError} from a wire error (unknown codes become `INTERNAL`). */
export function fromWireError(w: unknown): HoldfastError {
  if (w && typeof w === 'object') {
    const o = w as Record<string, unknown>;
    const code = isErrorCode(o.code) ? o.code : 'INTERNAL';
    const message = typeof o.message === 'string' ? o.message : 'unknown error';
    const opts: { retryable?: boolean; details?: Record<string, unknown> } = { retryable: o.retryable === true };
    if (o.details && typeof o.details === 'object') opts.details = o.details as Record<string, unknown>;
    return new HoldfastError(code, message, opts);
  }
  return new HoldfastError('INTERNAL', String(w));
}

/**
 * Why a request was cancelled (issue 9, item 4): `client` — the MCP client cancelled it on purpose;
 * `gone` — its connection went away where the answer cannot be fetched later; `timeout` — the
 * client's own request timeout fired and it sent `notifications/cancelled` for that reason (the
 * client gave up waiting, it did not ask to stop the work; docs/execution-tasks.md).
 */
export type CancelWhy = 'client' | 'gone' | 'timeout';

/** Every {@link CancelWhy}, for checking a value read off the wire. */
export const CANCEL_WHYS: readonly CancelWhy[] = ['client', 'gone', 'timeout'];

/** `value` when it is a {@link CancelWhy}, else undefined (an older or newer peer's unknown reason). */
export function asCancelWhy(value: unknown): CancelWhy | undefined {
  return CANCEL_WHYS.includes(value as CancelWhy) ? (value as CancelWhy) : undefined;
}

/**
 * The abort reason for a request cancelled for `why` (issue 9, item 4): a `CANCELLED` error whose
 * `details.why` says whether the MCP client cancelled it on purpose (`client`), its connection
 * is gone (`gone`) or its request timed out (`timeout`). Passed as `AbortController.abort(reason)`
 * and carried across processes by `cancel{id, why}` frames.
 */
export function cancelReason(why: CancelWhy | undefined, message = 'cancelled by the caller'): HoldfastError {
  return new HoldfastError('CANCELLED', message, { retryable: false, ...(why !== undefined ? { details: { why } } : {}) });
}

/** `why` of an abort reason made by {@link cancelReason}, else undefined. */
export function cancelWhy(reason: unknown): CancelWhy | undefined {
  if (!(reason instanceof HoldfastError) || reason.code !== 'CANCELLED') return undefined;
  return asCancelWhy((reason.details as { why?: unknown } | undefined)?.why);
}
