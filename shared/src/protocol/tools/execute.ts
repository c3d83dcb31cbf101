import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/**
 * `execute` (DESIGN §5, issue 5): run a command in the session's PTY shell, as a background task, as
 * an exact argv or as a project task; wait up to `yield_time_ms` and return rendered output and the
 * exit code, or an `execution_task_id` to attach to later. Every run passes the command policy.
 */
export const executeTool = {
  name: 'execute',
  title: 'Run a command',
  description:
    "Run in the session's persistent terminal (cwd and env persist): command (shell text), argv with shell=false (exact vector, no shell), or task (a project task, see runtime_read view=project; output parsed into diagnostics). " +
    'Finishes within yield_time_ms → output and exit_code; else status=accepted with execution_task_id: action=attach waits again, stdin answers prompts (text, keys), stop ends it, status peeks. background=true starts a tracked task at once. ' +
    'A command policy judges every run: refused → POLICY_DENIED; waiting_confirmation → ask the user, then repeat the call with user_confirmed=true and the given idempotency_key.',
  input: z.object({
    action: z.enum(['run', 'attach', 'stop', 'stdin', 'status']).default('run'),
    remote_session_id: z.string().describe('From session(action="open")'),
    purpose: z.string().max(500).optional().describe('Why (shown to the user, kept in history)'),
    command: z.string().optional().describe('Shell command line'),
    argv: z.array(z.string()).min(1).optional().describe('Exact argument vector (with shell=false)'),
    shell: z.boolean().optional().describe('false with argv'),
    task: z.string().min(1).max(200).optional().describe('Project task name (npm:build, make:test, or plain build)'),
    cwd: z.string().optional().describe('Working directory for this call only, relative to the workspace root: the command runs in a subshell there, so its cd, export and traps do not persist'),
    env: z.record(z.string(), z.string()).optional(),
    secrets: z.array(z.string()).optional().describe('Secret names to set in env'),
    yield_time_ms: z.number().int().min(0).max(120000).optional().describe('Wait at most this long (default 10000)'),
    background: z.boolean().optional().describe('Start as a background task at once'),
    execution_task_id: z.string().optional().describe('For attach, stop, stdin, status'),
    text: z.string().optional().describe('stdin: text to type'),
    keys: z.array(z.string()).optional().describe('stdin: named keys (Enter, Tab, Esc, Backspace, Ctrl-C, Ctrl-D, Up, Down, Left, Right)'),
    idempotency_key: z.string().max(200).optional().describe('Same key + same call = same task; required to confirm'),
    user_confirmed: z.boolean().optional().describe('The user confirmed this exact call'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
