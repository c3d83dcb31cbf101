import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';

/**
 * A line-window position shared by single reads and batch items (issue 4). Described once, on the
 * top-level fields (the `items` entries take the same ones).
 */
const windowFields = {
  mode: z.enum(['window', 'full', 'literal', 'regex', 'files', 'entries']).optional(),
  offset: z.number().int().optional(),
  line_byte_offset: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).optional(),
  start_line: z.number().int().min(1).optional(),
  end_line: z.number().int().min(1).optional(),
  force: z.boolean().optional(),
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
    'Read workspace files (relative paths). view=file: text in data.content with its sha256 (edit\'s base_sha256) and a next-window action; images as image content; items=[…] reads up to 20 files. ' +
    'view=search: query in files (.gitignore respected, include/exclude globs, cursor paging). view=list: files (recursive) or entries (one level). view=context: items within max_total_bytes. ' +
    'view=outline: definitions (kind, name, lines, signature) of path, or a ranked map of a folder (TS/JS/Python/Go/Rust). view=references: definitions and uses of the name in query.',
  input: z.object({
    remote_session_id: z.string().describe('From session(action="open")'),
    view: z.enum(['file', 'search', 'list', 'context', 'outline', 'references']).default('file'),
    path: z.string().optional().describe('file: path, or path:10-40; other views: folder'),
    mode: windowFields.mode.describe('file: window|full; search: literal|regex; list: files|entries'),
    offset: windowFields.offset.describe('file: first line, 0-based (negative: from the end; binary: byte)'),
    line_byte_offset: windowFields.line_byte_offset.describe('Continue inside a long line at this byte'),
    limit: windowFields.limit.describe('Lines, matches or entries at most'),
    start_line: windowFields.start_line.describe('1-based (one range form only: this, offset or path:N-M)'),
    end_line: windowFields.end_line.describe('1-based, inclusive'),
    force: windowFields.force.describe('Content even if unchanged since you read it'),
    items: z.array(ReadItem).min(1).max(100).optional().describe('{path, …window fields}: file up to 20, context up to 100'),
    max_total_bytes: z.number().int().min(1).optional().describe('items/context budget'),
    query: z.string().min(1).optional().describe('search: text or regex; list: path substring; references: name'),
    include: z.array(z.string()).optional().describe('Globs (*.ts, src/**)'),
    exclude: z.array(z.string()).optional(),
    context_lines: z.number().int().min(0).max(20).optional(),
    case_sensitive: z.boolean().optional().describe('search: default true'),
    cursor: z.string().optional().describe('Next page'),
    purpose: z.string().max(500).optional(),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
