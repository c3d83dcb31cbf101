import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/**
 * `skill_tool` (issue 13; docs/extensions.md): the skills of the session's workspace and of the
 * home — folders holding a `SKILL.md`. `list` → name, description, kind; `describe` → the
 * instructions, arguments schema, files and revision; `call` → a document skill's instructions
 * (and the files named in `files`), or an executable skill's `entry` run as a task with the
 * validated `arguments` (after the user's confirmation, through the command policy).
 */
export const skillTool = {
  name: 'skill_tool',
  title: 'Use a skill',
  description:
    'Skills are folders of instructions and scripts. action=list (name, description, kind); describe (instructions, arguments schema, files, revision); ' +
    'call: a document skill returns its instructions (and files named in files); an executable skill runs as a task with arguments, after waiting_confirmation → ask the user, repeat the call with user_confirmed=true.',
  input: z.object({
    action: z.enum(['list', 'describe', 'call']).default('list'),
    remote_session_id: z.string().describe('From session(action="open")'),
    skill: z.string().min(1).max(64).optional().describe('Skill name (describe, call)'),
    arguments: z.record(z.string(), z.unknown()).optional().describe('call: arguments of an executable skill'),
    files: z.array(z.string().min(1)).max(20).optional().describe('call: skill files to return'),
    purpose: z.string().max(500).optional().describe('Why (shown to the user)'),
    yield_time_ms: z.number().int().min(0).max(120000).optional(),
    user_confirmed: z.boolean().optional().describe('The user confirmed this exact call'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
