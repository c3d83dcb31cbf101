import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/**
 * Views of `observe`. `diff` (issue 4) pages through the stored diff of an edit; `session`, `task`,
 * `logs` and `history` (issue 5) show a session's state, one execution task, its output by byte
 * offset, and the event log.
 */
export const ObserveView = z.enum(['diff', 'session', 'task', 'logs', 'history']);
export type ObserveView = z.infer<typeof ObserveView>;

/** `observe` (DESIGN §6.4): read-only views of a session's history and state. */
export const observeTool = {
  name: 'observe',
  title: 'Observe session history',
  description:
    'Read-only views of a session. view=session: state, shell pid, cwd, busy, clocks, recent tasks. view=task: one execution task. ' +
    'view=logs: a task\'s output from byte offsets, with next offsets. view=history: the session\'s events (scope=workspace: its workspace\'s), newest first, filtered by tool/status. ' +
    'view=diff: an edit\'s full diff (edit_id), paged by offset/limit lines.',
  input: z.object({
    view: ObserveView,
    remote_session_id: z.string().describe('From session(action="open")'),
    edit_id: z.string().optional().describe('diff: ed_… from edit'),
    offset: z.number().int().min(0).optional().describe('diff: first line, 0-based'),
    limit: z.number().int().min(1).max(5000).optional().describe('diff: lines (default 400); history: events (default 50, max 200)'),
    execution_task_id: z.string().optional().describe('task/logs: task_… from execute'),
    stdout_offset: z.number().int().min(0).optional().describe('logs: byte offset of stdout (or terminal output)'),
    stderr_offset: z.number().int().min(0).optional(),
    max_bytes: z.number().int().min(1).max(1048576).optional().describe('logs: bytes per stream (default 65536)'),
    wait_ms: z.number().int().min(0).max(30000).optional().describe('logs: wait for new output'),
    scope: z.enum(['session', 'workspace']).optional(),
    order: z.enum(['newest', 'oldest']).optional().describe('history: newest (default) or oldest first'),
    before_seq: z.number().int().min(0).optional().describe('history, newest first: events before this seq'),
    after_seq: z.number().int().min(0).optional().describe('history, oldest first: events after this seq'),
    tool: z.string().optional().describe('history: calls of this tool only'),
    status: z.string().optional().describe('history: this status only'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
