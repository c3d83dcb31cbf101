import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { renderedAs } from './json-schema.js';

/**
 * The `env` argument: `["NAME=value", …]` as advertised (issue 8: a free-form object has no
 * properties, which Gemini refuses), or `{NAME: value}` as before — both parse.
 */
export const ExecuteEnv = renderedAs(z.union([z.array(z.string()), z.record(z.string(), z.string())]), {
  type: 'array',
  items: { type: 'string' },
});

/**
 * `execute` (DESIGN §5, issue 5): run a command in the session's PTY shell, as a background task, as
 * an exact argv or as a project task; wait up to `yield_time_ms` and return rendered output and the
 * exit code, or an `execution_task_id` to attach to later. Every run passes the command policy.
 */
export const executeTool = {
  name: 'execute',
  title: 'Run a command',
  description:
    "Run in the session's persistent terminal (cwd and env persist): command (shell text), argv with shell=false (no shell), or task (a project task, see runtime_read view=project). " +
    'Done within yield_time_ms → output and exit_code; else status=accepted with execution_task_id: action=attach waits again and returns only new output, stdin answers prompts, stop ends it, status peeks. background=true starts a tracked task. ' +
    'A command policy judges every command, also inside $(…), backticks and here-documents: refused → POLICY_DENIED; waiting_confirmation → ask the user, then repeat the call with user_confirmed=true and the given idempotency_key. ' +
    'A command name from a variable or $(…) needs confirmation; a lone & is refused (use background=true).',
  input: z.object({
    action: z.enum(['run', 'attach', 'stop', 'stdin', 'status']).default('run'),
    remote_session_id: z.string().describe('From session(action="open")'),
    purpose: z.string().max(500).optional().describe('Why (shown to user)'),
    command: z.string().optional().describe('Shell command line'),
    argv: z.array(z.string()).min(1).optional().describe('Exact argument vector (with shell=false)'),
    shell: z.boolean().optional(),
    task: z.string().min(1).max(200).optional().describe('Project task (npm:build, make:test, build)'),
    cwd: z.string().optional().describe('Folder for this call only (a subshell: cd/export do not persist)'),
    env: ExecuteEnv.optional().describe('NAME=value strings, for this call only'),
    secrets: z.array(z.string()).optional().describe('Secret names to set in env'),
    yield_time_ms: z.number().int().min(0).max(120000).optional().describe('Wait at most this long (default 10000)'),
    background: z.boolean().optional(),
    execution_task_id: z.string().optional().describe('attach, stop, stdin, status: the task'),
    offset: z.number().int().min(0).optional().describe('attach/status: output offset to resume from (default: after the last result; 0: all)'),
    text: z.string().optional().describe('stdin: text to type'),
    keys: z.array(z.string()).optional().describe('stdin: Enter, Tab, Esc, Backspace, Ctrl-C, Ctrl-D, Up, Down…'),
    idempotency_key: z.string().min(1).max(200).optional().describe('Same key + same call = same task; needed to confirm'),
    user_confirmed: z.boolean().optional().describe('The user confirmed this exact call'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
