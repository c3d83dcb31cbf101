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
    'Read-only views of a session. view=session: state, shell pid, cwd, busy, activity clock, recent tasks. view=task: one execution task. ' +
    'view=logs: a task\'s output from stdout_offset/stderr_offset (byte offsets; a foreground command has one stream, stdout_offset), with next offsets and a continuation action. ' +
    'view=history: events of the session (or scope=workspace: of its workspace), paged by after_seq, filtered by tool/status. ' +
    'view=diff: the full diff of an edit (edit_id from edit), paged by offset/limit in lines.',
  input: z.object({
    view: ObserveView,
    remote_session_id: z.string().describe('From session(action="open")'),
    edit_id: z.string().optional().describe('view=diff: ed_… from edit'),
    offset: z.number().int().min(0).optional().describe('First line (0-based)'),
    limit: z.number().int().min(1).max(5000).optional().describe('diff: lines at most (default 400); history: events at most (default 50, max 200)'),
    execution_task_id: z.string().optional().describe('view=task/logs: task_… from execute'),
    stdout_offset: z.number().int().min(0).optional().describe('view=logs: byte offset to read stdout (or the terminal output) from'),
    stderr_offset: z.number().int().min(0).optional().describe('view=logs: byte offset to read stderr from (piped tasks)'),
    max_bytes: z.number().int().min(1).max(1048576).optional().describe('view=logs: raw bytes per stream at most (default 65536)'),
    wait_ms: z.number().int().min(0).max(30000).optional().describe('view=logs: wait this long for new output when there is none yet'),
    scope: z.enum(['session', 'workspace']).optional().describe('view=history: this session (default) or its whole workspace'),
    after_seq: z.number().int().min(0).optional().describe('view=history: events after this sequence number'),
    tool: z.string().optional().describe('view=history: only calls of this tool'),
    status: z.string().optional().describe('view=history: only events with this status'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
