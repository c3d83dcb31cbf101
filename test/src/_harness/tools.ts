import type { DaemonClient } from '@holdfast/adapter/daemon-client';
import type { ToolCallResult } from '@holdfast/shared/control';
import { ENVELOPE_META_KEY } from '@holdfast/shared/tools';

/** The DESIGN §6.3 envelope as tests read it. */
export interface Envelope {
  status: 'succeeded' | 'accepted' | 'waiting_confirmation' | 'waiting_user' | 'interrupted' | 'failed' | 'completed_with_issues';
  type: string;
  context: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
  error: { code: string; message: string; retryable: boolean } | null;
  hints: Record<string, unknown>;
  actions: { tool: string; arguments: Record<string, unknown>; reason: string }[];
}

export interface ToolReply {
  env: Envelope;
  text: string;
  isError: boolean;
  /** The result as the daemon returned it (pass-through results of mcp_tool, issue 13). */
  raw: ToolCallResult;
}

/** The §6.3 envelope of a result: `_meta["holdfast/envelope"]` (mcp_tool) or `structuredContent`. */
export function envelopeOf(r: { structuredContent?: unknown; _meta?: Record<string, unknown> }): Envelope {
  return (r._meta?.[ENVELOPE_META_KEY] ?? r.structuredContent) as Envelope;
}

/** Every tool of issue 5 plus session/runtime_read. */
export const EXEC_TOOLS = ['workspace', 'session', 'execute', 'observe', 'runtime_read'];

/**
 * Calls tools through the daemon's `tool.call` (what the adapter forwards) as `principal`, in
 * conversation `context.conversation_id` when given (what the adapter derives, issue 8).
 * Waits as long as the longest yield plus slack; a call is never silently re-sent.
 */
export function toolCaller(c: DaemonClient, principal = 'p', tools: string[] = EXEC_TOOLS, context: { conversation_id?: string } = {}) {
  return async (tool: string, args: Record<string, unknown>): Promise<ToolReply> => {
    const r = await c.call('tool.call', { tool, arguments: args, context: { principal, allowed_tools: tools, ...context } }, { deadlineMs: 150_000, retry: 'never' });
    const text = r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return { env: envelopeOf(r), text, isError: r.isError, raw: r };
  };
}

/** Opens (or resumes) the principal's session on workspace `ws`; returns its id. */
export async function openSession(c: DaemonClient, principal = 'p'): Promise<string> {
  const { session } = await c.call('session.open', { principal, workspace: 'ws' });
  return session.remote_session_id;
}

/** A started daemon with one session of `principal`, its shell past its first prompt. */
export interface ExecSession {
  client: DaemonClient;
  call: ReturnType<typeof toolCaller>;
  rs: string;
  /** `execute` on this session. */
  run: (args: Record<string, unknown>) => Promise<ToolReply>;
}

/**
 * Starts the home's daemon, opens a session and runs `true` once (the first command waits for the
 * shell's first prompt, which is not what the tests measure).
 */
export async function startExecSession(h: { startDaemon(): Promise<number>; client(): DaemonClient }, principal = 'p'): Promise<ExecSession> {
  await h.startDaemon();
  const client = h.client();
  const call = toolCaller(client, principal);
  const rs = await openSession(client, principal);
  const run = (args: Record<string, unknown>) => call('execute', { remote_session_id: rs, ...args });
  const warm = await run({ command: 'true', yield_time_ms: 30_000 });
  if (warm.env.data?.exit_code !== 0) throw new Error(`the session's shell did not run true: ${warm.text}`);
  return { client, call, rs, run };
}
