import * as z from 'zod';
import { envelopeSchema, type ToolDef } from './envelope.js';

/** `workspace`: the registered workspaces (issue 3), or one of them by `name` (issue 8: Gemini needs a parameter). */
export const workspaceTool = {
  name: 'workspace',
  title: 'List workspaces',
  description:
    'List the workspaces registered on this machine: name, path, description, available. Open a session on one with session(action="open", workspace=NAME).',
  input: z.object({ name: z.string().optional().describe('Only this workspace') }),
  output: envelopeSchema(
    z.object({
      workspaces: z.array(z.object({ name: z.string(), path: z.string(), description: z.string(), available: z.boolean() })),
    }),
  ),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
