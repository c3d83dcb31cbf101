import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { PassThroughArguments } from './pass-through-arguments.js';

/**
 * `skill_tool` (issue 13; docs/extensions.md): the skills of the session's workspace and of the
 * home — folders holding a `SKILL.md`. `list` → name, description, kind; `describe` → the
 * instructions, arguments schema, files and revision; `call` → a document skill's instructions
 * (and the files named in `files`), or an executable skill's `entry` run as a task with the
 * validated `arguments` (after the user's confirmation, through the command policy).
 */
export const skillTool = {
  name: 'skill_tool',
  title: 'Skills',
  description:
    'Skills (folders with a SKILL.md). action=list; describe(skill): instructions, arguments schema, files, revision; call(skill): a document skill’s ' +
    'instructions (+ files), or an executable skill run as a task with arguments. waiting_confirmation: ask the user, repeat with user_confirmed=true.',
  input: z.object({
    action: z.enum(['list', 'describe', 'call']).default('list'),
    remote_session_id: z.string(),
    skill: z.string().optional(),
    arguments: PassThroughArguments.optional().describe('call: a JSON object'),
    files: z.array(z.string()).optional(),
    purpose: z.string().optional().describe('Shown to the user'),
    user_confirmed: z.boolean().optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
