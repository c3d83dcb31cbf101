import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/**
 * `runtime_read` (issue 3): `view=capabilities` — version, build, protocol versions, schema
 * revision, limits. `view=project` (issue 5) — the project tasks `execute(task=…)` can run.
 * `view=secrets` (issue 12) — the names and purposes of a session's secrets and open requests.
 */
export const runtimeReadTool = {
  name: 'runtime_read',
  title: 'Read runtime facts',
  description:
    'Facts about this holdfast runtime. view=capabilities: version, build, MCP protocol versions, tool-schema revision, limits. ' +
    'view=project: a workspace\'s project tasks (package.json scripts, Makefile targets, Cargo/Go/pyproject conventions, .holdfast.yaml) for execute(task=NAME). ' +
    'view=secrets: the session\'s secret names and purposes.',
  input: z.object({
    view: z.enum(['capabilities', 'project', 'secrets']).default('capabilities'),
    remote_session_id: z.string().optional().describe("view=project: this session's workspace; view=secrets: this session"),
    workspace: z.string().optional().describe('view=project: a workspace by name (default: the only one)'),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
