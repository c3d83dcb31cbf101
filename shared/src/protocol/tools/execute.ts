import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/**
 * `execute` (DESIGN §5, issues 3 and 5): run a command in the session's PTY shell (or as a
 * background task), wait up to `yield_time_ms`, and return rendered output and the exit code, or
 * an `execution_task_id` to attach to later.
 */
export const executeTool = {
  name: 'execute',
  title: 'Run a command',
  description:
    'Run a shell command in the session\'s persistent terminal (cwd and env persist). Returns output and exit_code when it finishes within yield_time_ms; ' +
    'otherwise status=accepted with execution_task_id: use action=attach to wait again, action=stdin to answer prompts (text, keys), action=stop to end it.',
  input: z.object({
    action: z.enum(['run', 'attach', 'stop', 'stdin', 'status']).default('run'),
    remote_session_id: z.string().describe('From session(action="open")'),
    purpose: z.string().max(500).optional().describe('Why (shown to the user, kept in history)'),
    command: z.string().optional().describe('Shell command line'),
    argv: z.array(z.string()).min(1).optional().describe('Exact argument vector (with shell=false)'),
    shell: z.boolean().optional(),
    cwd: z.string().optional().describe('Working directory, relative to the workspace'),
    env: z.record(z.string(), z.string()).optional(),
    yield_time_ms: z.number().int().min(0).max(120000).optional().describe('Wait at most this long (default 10000)'),
    background: z.boolean().optional().describe('Start as a background task at once'),
    execution_task_id: z.string().optional().describe('For attach, stop, stdin, status'),
    text: z.string().optional().describe('stdin: text to type'),
    keys: z.array(z.string()).optional().describe('stdin: named keys (Enter, Tab, Esc, Backspace, Ctrl-C, Ctrl-D, Up, Down, Left, Right)'),
    idempotency_key: z.string().max(200).optional(),
    user_confirmed: z.boolean().optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
