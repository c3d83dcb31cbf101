import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/** `runtime_read` (issue 3): `view=capabilities` — version, build, protocol versions, schema revision, limits. */
export const runtimeReadTool = {
  name: 'runtime_read',
  title: 'Read runtime facts',
  description: 'Read facts about this holdfast runtime. view=capabilities: version, build commit, supported MCP protocol versions, tool-schema revision hash, limits.',
  input: z.object({
    view: z.enum(['capabilities']).default('capabilities'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
