import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/**
 * `session` (DESIGN §4.2, issue 3): open (attach-or-create, the default), resume by
 * `remote_session_id`, close, reset_shell. The data carries remote_session_id, workspace,
 * workspace_root, shell_pid, affinity, tools, limits and guide.
 */
export const sessionTool = {
  name: 'session',
  title: 'Open, resume or close a session',
  description:
    'Open a durable session on a workspace (the live one for this workspace, or a new one; the result says the shell\'s cwd) or resume one by remote_session_id after a reconnect. ' +
    'Pass remote_session_id verbatim to every other tool. action=close ends it (its shell and processes stop); action=reset_shell starts a fresh shell.',
  input: z.object({
    action: z.enum(['open', 'close', 'reset_shell']).default('open').describe('open (default) | close | reset_shell'),
    workspace: z.string().optional().describe('Workspace name from the workspace tool'),
    remote_session_id: z.string().optional().describe('Resume exactly this session'),
    conversation_id: z.string().max(200).optional().describe('Client conversation id (conversation affinity)'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
