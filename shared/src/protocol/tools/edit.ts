import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/** A file's text format as `read` reports it and `expected_format` declares it (issue 4). */
export const ExpectedFormat = z.object({
  charset: z.string().describe('utf-8 | utf-16le | utf-16be | iso-8859-1 | binary'),
  bom: z.boolean(),
  line_ending: z.enum(['LF', 'CRLF', 'CR', 'mixed', 'none']),
});
export type ExpectedFormat = z.infer<typeof ExpectedFormat>;

/** One target of an `edit` call (issue 4). `undo` restores this session's last edit of `path`. */
export const EditOperation = z.object({
  operation: z.enum(['create', 'update', 'rename', 'undo']),
  path: z.string().min(1),
  new_path: z.string().min(1).optional().describe('rename: destination'),
  base_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional().describe('update/rename: the 64-hex sha256 from read'),
  content: z.string().optional().describe('Whole text (create, or replace all)'),
  content_base64: z.string().optional().describe('Exact bytes; needs newline_policy=exact and expected_format'),
  replacements: z.array(z.object({ match: z.string().min(1), replacement: z.string() })).min(1).optional()
    .describe('Exact, unique matches'),
  line_patch: z.array(z.object({ start_line: z.number().int().min(1), end_line: z.number().int().min(0), content: z.string() })).min(1).optional()
    .describe('Replace lines start..end (1-based, of the base); end=start-1 inserts'),
  newline_policy: z.enum(['preserve', 'exact']).optional().describe('preserve (default) keeps charset, BOM, line endings'),
  expected_format: ExpectedFormat.optional(),
});
export type EditOperation = z.infer<typeof EditOperation>;

/**
 * `edit` (issue 4): create, update, rename (and undo) workspace files, all-or-nothing, atomically,
 * guarded by `base_sha256` and read-before-edit; byte-exact formats; idempotency keys; dry runs;
 * an optional `verify_command`. No delete: that is `move_out`.
 */
export const editTool = {
  name: 'edit',
  title: 'Edit workspace files',
  description:
    'Create, update or rename workspace files; all edits apply or none. update needs base_sha256 from read and one of replacements (exact, unique), line_patch, content, or content_base64 (newline_policy=exact + expected_format). ' +
    'Charset, BOM and line endings are kept. Returns edit_id, readback and a diff preview (full diff: observe view=diff). operation=undo reverts your last edit of a file. No delete: use move_out.',
  input: z.object({
    remote_session_id: z.string().describe('From session(action="open")'),
    purpose: z.string().max(500).optional().describe('Why (kept in history)'),
    idempotency_key: z.string().min(1).max(200).optional().describe('Same key + same arguments = same receipt'),
    dry_run: z.boolean().optional().describe('Return the diff without writing'),
    verify_command: z.string().min(1).max(4000).optional().describe('Shell check after writing (policy applies)'),
    edits: z.array(EditOperation).min(1).max(100),
  }),
  output: envelopeSchema(LooseData),
  // destructive: an update replaces existing bytes (undo is bounded: last edit, ≤ 4 MiB, this session).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
} satisfies ToolDef;
