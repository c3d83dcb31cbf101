import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanString } from './lean.js';

/**
 * `environment` (issue 12, docs/environment.md): saves a fresh reading of the machine environment
 * the session's commands run in — OS, kernel, architecture, CPUs, memory, free disk of the
 * workspace, locale, shell, PATH entries, toolchain versions, environment variable names (never
 * values) — as a snapshot for `environment_read(view="snapshot"|"compare")`.
 */
export const environmentTool = {
  name: 'environment',
  title: 'Save environment',
  description: 'Save an environment snapshot for environment_read.',
  input: z.object({
    remote_session_id: z.string(),
    label: leanString(200).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;

/**
 * `environment_read` (issue 12): `current` (cached 60 s; `refresh` reads again), a saved
 * `snapshot` (or the list of them without `snapshot_id`), or `compare` (what was added, removed
 * and changed between `snapshot_id` and `against` — another snapshot, or now).
 */
export const environmentReadTool = {
  name: 'environment_read',
  title: 'Environment',
  description: 'compare: snapshot_id against another id or now.',
  input: z.object({
    view: z.enum(['current', 'snapshot', 'compare']),
    remote_session_id: z.string(),
    snapshot_id: leanString(40).optional(),
    against: leanString(40).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
