import type { DaemonClient } from '@holdfast/adapter/daemon-client';

/** The DESIGN §6.3 envelope as tests read it. */
export interface Envelope {
  status: 'succeeded' | 'accepted' | 'waiting_confirmation' | 'interrupted' | 'failed' | 'completed_with_issues';
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
}

/** Every tool of issue 5 plus session/runtime_read. */
export const EXEC_TOOLS = ['workspace', 'session', 'execute', 'observe', 'runtime_read'];

/**
 * Calls tools through the daemon's `tool.call` (what the adapter forwards) as `principal`.
 * Waits as long as the longest yield plus slack; a call is never silently re-sent.
 */
export function toolCaller(c: DaemonClient, principal = 'p', tools: string[] = EXEC_TOOLS) {
  return async (tool: string, args: Record<string, unknown>): Promise<ToolReply> => {
    const r = await c.call('tool.call', { tool, arguments: args, context: { principal, allowed_tools: tools } }, { deadlineMs: 150_000, retry: 'never' });
    const text = r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return { env: r.structuredContent as unknown as Envelope, text, isError: r.isError };
  };
}

/** Opens (or resumes) the principal's session on workspace `ws`; returns its id. */
export async function openSession(c: DaemonClient, principal = 'p'): Promise<string> {
  const { session } = await c.call('session.open', { principal, workspace: 'ws' });
  return session.remote_session_id;
}
