import { OWNER_PRINCIPAL } from '@holdfast/shared/config';

/**
 * Named limits and timings of the MCP adapter (DESIGN §6.2), grouped by purpose, units in names.
 * Operator-tunable values are defaults of `config.yaml` keys (shared/src/config/schema.ts);
 * the ones here are fixed by design.
 */

/** Bearer authentication (DESIGN §6.2). */
export const AuthConstants = {
  /** A failed authentication is answered no sooner than this, milliseconds. */
  FAILURE_DELAY_MS: 100,
  /** Shortest token accepted without `--allow-weak-token`, bytes. */
  MIN_TOKEN_BYTES: 32,
  /** Random bytes of a generated token (base64url-encoded into 43 characters). */
  GENERATED_TOKEN_BYTES: 32,
  /** The `realm` of `WWW-Authenticate` challenges. */
  REALM: 'holdfast',
} as const;

/** Transport sessions of 2025-era clients (`Mcp-Session-Id`, MCP 2025-11-25 transports). */
export const LegacySessionConstants = {
  /** Transport sessions kept at most; the least recently used one is closed beyond this. */
  MAX_SESSIONS: 256,
  /** A transport session unused for this long is closed (its client gets 404 and re-initializes), ms. */
  IDLE_MS: 60 * 60 * 1000,
  /** How often idle transport sessions are looked for, ms. */
  SWEEP_INTERVAL_MS: 60 * 1000,
  /** SSE `retry` hint sent in priming events, ms (SEP-1699 polling). */
  SSE_RETRY_MS: 1000,
  /** Events kept per transport session for `Last-Event-ID` replay. */
  EVENT_STORE_MAX_EVENTS: 512,
  /** Bytes of event payload kept per transport session for replay. */
  EVENT_STORE_MAX_BYTES: 8 * 1024 * 1024,
} as const;

/** HTTP serving. */
export const HttpConstants = {
  /** The one MCP endpoint (DESIGN §6.1: no `/sse`, no `/message`). */
  MCP_PATH: '/mcp',
  /** After a request timed out while streaming, the stream is cut this long later if still open, ms. */
  TIMEOUT_STREAM_GRACE_MS: 1000,
  /** Source addresses tracked by the rate limiter at most (oldest forgotten first). */
  RATE_LIMIT_MAX_SOURCES: 10_000,
  /** Header carrying the client's conversation id (DESIGN §4.2, conversation affinity). */
  CONVERSATION_HEADER: 'x-holdfast-conversation-id',
} as const;

/**
 * Read deadlines of a request (issue 18): a slow client must not hold a connection, a concurrency
 * slot or body-budget bytes longer than it takes to send its request at a modest rate.
 */
export const ReadDeadlines = {
  /** The request line and headers must arrive within this, ms (Node's `headersTimeout` → 408). */
  HEADERS_MS: 5000,
  /** How often Node checks connections against the header deadline, ms (default 30 s). */
  CONNECTIONS_CHECK_INTERVAL_MS: 1000,
  /** A body may take this long before the minimum rate applies, ms. */
  BODY_GRACE_MS: 5000,
  /** After the grace, a body must have arrived at this average rate at least, bytes/s (else 408). */
  BODY_MIN_BYTES_PER_S: 64 * 1024,
  /** How often a body being read is checked against its deadline, ms. */
  BODY_CHECK_INTERVAL_MS: 500,
} as const;

/** Forwarding tool calls to the daemon. */
export const ForwardConstants = {
  /** Extra time the daemon call gets beyond the request timeout, so the HTTP layer decides first, ms. */
  DAEMON_DEADLINE_MARGIN_MS: 5000,
  /**
   * The longest single wait of a call whose request has no progress token, ms (issue 8): SDK v1
   * clients give up after 60 s by default and nothing resets that clock without progress, so the
   * call answers `accepted` with its task id well before.
   */
  NO_PROGRESS_WAIT_CAP_MS: 50_000,
  /** While a call with a progress token runs, `notifications/progress` goes out this often, ms. */
  PROGRESS_INTERVAL_MS: 10_000,
} as const;

/** Names of built-in principals (reserved in principals files, shared/config `reservedPrincipalName`). */
export const PrincipalNames = {
  /** The machine owner: the single configured token, `--auth open`, and stdio. */
  OWNER: OWNER_PRINCIPAL,
} as const;
