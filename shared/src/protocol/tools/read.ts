import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/** A line-window position shared by single reads and batch items (issue 4). */
const windowFields = {
  mode: z.enum(['window', 'full', 'literal', 'regex', 'files', 'entries']).optional()
    .describe('file: window (default) | full; search: literal (default) | regex; list: files (default) | entries'),
  offset: z.number().int().optional().describe('file: first line, 0-based (negative = from the end); binary: byte offset'),
  line_byte_offset: z.number().int().min(0).optional().describe('Continue inside a long line at this byte'),
  limit: z.number().int().min(1).optional().describe('Lines (file), matches (search) or entries (list) at most'),
  start_line: z.number().int().min(1).optional().describe('1-based first line (or path:10-40)'),
  end_line: z.number().int().min(1).optional().describe('1-based last line, inclusive'),
  force: z.boolean().optional().describe('Return the content even if unchanged since this session read it'),
};

/** One read of a batch (`items`) or of a context bundle. */
export const ReadItem = z.object({ path: z.string().min(1), ...windowFields });
export type ReadItem = z.infer<typeof ReadItem>;

/**
 * `read` (issue 4): workspace files, byte-exact facts. `view=file` (window | full, images as MCP
 * image content, `items` batches), `view=search` (ripgrep or the built-in engine, same results),
 * `view=list` (files | entries) and `view=context` (a bounded bundle). Text in `data.content`.
 * Issue 17 adds the code map: `view=outline` (one file's definitions, or a folder's ranked map) and
 * `view=references` (definitions and uses of a name).
 */
export const readTool = {
  name: 'read',
  title: 'Read workspace files',
  description:
    'Read files of the session workspace. view=file: text in data.content with sha256 (pass it to edit as base_sha256), format, next-window action; images as image content; items=[…] reads up to 20 files. ' +
    'view=search: query in files (.gitignore respected; include/exclude globs; context_lines; cursor paging). view=list: files (recursive) or entries (one level). ' +
    'view=context: items bundled within max_total_bytes. view=outline: definitions (kind, name, lines, signature) of path, or a ranked map of a folder or the workspace (TS/JS/Python/Go/Rust). ' +
    'view=references: definitions and uses of the identifier in query, matched by name. Paths are relative to the workspace.',
  input: z.object({
    remote_session_id: z.string().describe('From session(action="open")'),
    view: z.enum(['file', 'search', 'list', 'context', 'outline', 'references']).default('file'),
    path: z.string().optional().describe('Relative path; file view accepts path:10-40; search/list/outline/references: scope folder'),
    ...windowFields,
    items: z.array(ReadItem).min(1).max(100).optional().describe('file: up to 20 reads; context: up to 100'),
    max_total_bytes: z.number().int().min(1).optional().describe('Budget of items/context, bytes'),
    query: z.string().min(1).optional().describe('search: text or regex; list files: path substring; references: name'),
    include: z.array(z.string()).optional().describe('Globs to include (e.g. *.ts, src/**)'),
    exclude: z.array(z.string()).optional().describe('Globs to exclude'),
    context_lines: z.number().int().min(0).max(20).optional(),
    case_sensitive: z.boolean().optional().describe('search: default true'),
    cursor: z.string().optional().describe('Next page, from the previous result'),
    purpose: z.string().max(500).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
