/**
 * Timing knobs and sizes of the guardian, grouped by purpose with units in their names (house
 * style). Cross-process values (kill graces, output segment sizes, protocol versions) live in
 * `@holdfast/shared/protocol` constants; these are the guardian's own.
 */

/** Shell start-up and prompt handling (DESIGN §5). */
export const ShellTimings = {
  /** No first prompt within this after spawning with the user's rc files → restart with a fallback, ms (default of `shell.rc_timeout_ms`). */
  RC_PROMPT_TIMEOUT_MS: 6000,
  /** While the rc files load, how often the guardian looks for a prompt waiting for input or a replaced shell, ms. */
  RC_WATCH_INTERVAL_MS: 200,
  /** An rc file blocked reading the terminal with no output for this long is waiting for a person, ms. */
  RC_INPUT_QUIET_MS: 1200,
  /** `g.exec` on a shell that has not shown its first prompt waits at most this, ms. */
  SHELL_READY_WAIT_MS: 15000,
  /** After a command ended, `g.exec` waits at most this for the next prompt before typing, ms. */
  PROMPT_WAIT_MS: 3000,
  /** After typing a command, wait this long for bash's start marker so the record's outputStart is final, ms. */
  START_MARKER_WAIT_MS: 2000,
  /**
   * After Ctrl-C, how long `g.stop` waits for the command to end before signalling its group, ms.
   * The terminal delivers SIGINT from a kernel worker; on a loaded machine that took over 500 ms,
   * and the escalation's SIGHUP arrived first (exit 129 instead of 130).
   */
  CTRL_C_GRACE_MS: 1000,
} as const;

/** Foreground command bookkeeping (DESIGN §5). */
export const CommandLimits = {
  /** Default quiet time before a command may count as awaiting input, ms. */
  DEFAULT_QUIET_MS: 1500,
  /** Finished command records kept for `g.wait` / `g.status`. */
  FINISHED_RECORDS_KEPT: 100,
  /** Longest command typed literally (anything longer goes through `eval $'…'`), bytes. */
  LITERAL_COMMAND_MAX_BYTES: 1024,
  /** Longest typed `eval $'…'` line; longer commands are spilled to a file, bytes. */
  INLINE_EVAL_MAX_BYTES: 4096,
  /** Longest command text recovered from the echo of a typed line, chars. */
  TYPED_COMMAND_MAX_CHARS: 1000,
} as const;

/**
 * The guardian's own watch of a quiet foreground command (input-watch.ts): is it waiting at a
 * prompt? Published so `status`/`observe` report it without anyone waiting on the command.
 */
export const InputWatchTimings = {
  /** First check after the PTY has been quiet (no output, no input) this long, ms. */
  FIRST_CHECK_QUIET_MS: 1500,
  /** Checks while it stays quiet back off (doubling) up to this interval, ms. */
  MAX_CHECK_INTERVAL_MS: 5000,
} as const;

/** Background tasks (DESIGN §5). */
export const TaskLimits = {
  /** One segment of a task stream log, bytes (× TASK_LOG_SEGMENTS retained = 32 MiB). */
  TASK_LOG_SEGMENT_BYTES: 8 * 1024 * 1024,
  TASK_LOG_SEGMENTS: 4,
  /** Finished task records kept in memory. */
  FINISHED_TASKS_KEPT: 100,
  /** After a task's process exits, wait this for its pipes to close before reporting it, ms. */
  PIPE_CLOSE_GRACE_MS: 300,
} as const;

/** Headless screen model (DESIGN §5). */
export const ScreenLimits = {
  /** Catch the screen model up after the PTY has been quiet this long, ms. */
  QUIET_CATCH_UP_MS: 300,
  /** Further behind than this, the model resets and replays only the tail, bytes. */
  MAX_BEHIND_BYTES: 2 * 1024 * 1024,
  /** Tail replayed after a reset, bytes. */
  REPLAY_TAIL_BYTES: 256 * 1024,
  /** One write into the terminal model, bytes. */
  FEED_CHUNK_BYTES: 256 * 1024,
} as const;

/** Connections, ending and linger (DESIGN §4.4). */
export const ServerTimings = {
  /** A client must send hello within this, ms. */
  HELLO_TIMEOUT_MS: 5000,
  /** After the shell exited by itself, stay this long for connected peers to collect, ms. */
  EXIT_LINGER_MS: 2000,
  /** Answers are flushed for at most this before the process exits, ms. */
  FLUSH_BEFORE_EXIT_MS: 500,
  /** A long wait answers this much before the caller's request deadline, ms. */
  DEADLINE_MARGIN_MS: 150,
} as const;

/** Upstream MCP servers hosted for the session (issue 13; docs/extensions.md). */
export const UpstreamLimits = {
  /** One segment of a server's stderr log, bytes (× STDERR_SEGMENTS retained = 4 MiB). */
  STDERR_SEGMENT_BYTES: 1024 * 1024,
  STDERR_SEGMENTS: 4,
  /** Lines of stderr quoted in an UPSTREAM_EXITED / UPSTREAM_UNAVAILABLE error. */
  STDERR_TAIL_LINES: 20,
  /** Bytes read from the end of the stderr log to find those lines. */
  STDERR_TAIL_BYTES: 4096,
  /** Spawn (or connect) + `initialize` must finish within this, ms. */
  CONNECT_TIMEOUT_MS: 30_000,
  /** `tools/list` (every page) must finish within this, ms. */
  LIST_TIMEOUT_MS: 30_000,
  /** `tools/list` pages followed at most (a server whose cursor never ends is an error). */
  LIST_MAX_PAGES: 64,
  /** `tools/call` without a timeout from the daemon, ms (reset by upstream progress). */
  DEFAULT_CALL_TIMEOUT_MS: 110_000,
  /** After a connection closed, wait this long for the process's exit status, ms. */
  EXIT_SETTLE_MS: 1000,
  /** Stopping a stdio server: after its stdin is closed, wait this before the kill escalation, ms. */
  CLOSE_GRACE_MS: 1000,
  /** The server's `instructions` kept for `describe`, characters. */
  INSTRUCTIONS_MAX_CHARS: 2000,
} as const;
