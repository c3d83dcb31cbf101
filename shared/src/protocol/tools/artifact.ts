import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { leanInt, leanString } from './lean.js';

/** Actions of `artifact` (issue 11). */
export const ArtifactAction = z.enum(['register', 'list', 'read']);

/**
 * `artifact` (issue 11, DESIGN §6.4): results worth keeping. `register` snapshots a workspace file
 * (`path`) or inline content (`content` text, or `content_base64` bytes) into the runtime home, so
 * later edits of the workspace do not change it; `read` pages it in source-byte coordinates (text
 * as UTF-8 `text`, anything else as `base64`; a page never splits a character). Also readable as
 * the resource `holdfast://remote-sessions/{remote_session_id}/artifacts/{artifact_id}`.
 */
export const artifactTool = {
  name: 'artifact',
  title: 'Keep and read artifacts',
  description:
    'register: snapshot a workspace path or content/content_base64, with title and kind (report, log, image). list. ' +
    'read: page from source_offset, limit bytes; text as text, else base64.',
  input: z.object({
    action: ArtifactAction,
    remote_session_id: z.string(),
    path: z.string().optional(),
    content: z.string().optional(),
    content_base64: z.string().optional(),
    title: leanString(300, 1).optional(),
    kind: leanString(40, 1).optional(),
    mime_type: leanString(200).optional(),
    artifact_id: leanString(200).optional(),
    source_offset: leanInt(0).optional(),
    limit: leanInt(1).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;
