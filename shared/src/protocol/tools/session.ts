import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/** Roles another principal can be given on a session (issue 14; `owner` moves only by handoff). */
export const GrantableRole = z.enum(['viewer', 'editor', 'approver']);

/**
 * `session` (DESIGN §4.2, issue 3): open (attach-or-create, the default), resume by
 * `remote_session_id`, close, reset_shell. The data carries remote_session_id, workspace,
 * workspace_root, shell_pid, affinity, role, tools, limits and guide. Issue 14 adds the owner's
 * `grant` (principal + role), `revoke` (principal) and `handoff` (principal becomes the owner).
 */
export const sessionTool = {
  name: 'session',
  title: 'Open, resume or close a session',
  description:
    'Open a durable session on a workspace (the live one for it, or a new one; the result says the shell\'s cwd), or resume one by remote_session_id after a reconnect; pass that id verbatim to every other tool. ' +
    'action=close ends it (its shell and processes stop); reset_shell starts a fresh shell; the owner can grant a principal a role (viewer, editor, approver), revoke it, or hand the session over (handoff).',
  input: z.object({
    action: z.enum(['open', 'close', 'reset_shell', 'grant', 'revoke', 'handoff']).default('open'),
    workspace: z.string().optional().describe('Name from the workspace tool'),
    remote_session_id: z.string().optional().describe('Resume exactly this session'),
    conversation_id: z.string().max(200).optional().describe('Client conversation id (conversation affinity)'),
    principal: z.string().min(1).max(200).optional().describe('grant/revoke/handoff: the other principal'),
    role: GrantableRole.optional().describe('grant: the role'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
