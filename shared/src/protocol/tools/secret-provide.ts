import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanString } from './lean.js';

/**
 * `secret_provide` (issue 12, docs/secrets.md): the model asks for a secret by `name` (the
 * environment variable `execute(secrets=[NAME])` sets) and `purpose`; the value comes from the
 * user — a loopback page opened through URL-mode elicitation, or `holdfast secret provide` in the
 * user's own terminal (`waiting_user`) — and lives only in the session guardian's memory.
 */
export const secretProvideTool = {
  name: 'secret_provide',
  title: 'Secrets',
  description: 'Ask the user for a secret (name, purpose); you never see it. waiting_user: the user runs the given command, then call status. Use via execute(secrets).',
  input: z.object({
    action: z.enum(['request', 'status', 'forget']),
    remote_session_id: z.string(),
    name: leanString(64, 1),
    purpose: leanString(300).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
