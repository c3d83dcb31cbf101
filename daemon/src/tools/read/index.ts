import { FileLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { readTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ToolContext } from '../context.js';
import { failure, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, openWorkspace } from '../file-access.js';
import { readBatch } from './batch.js';
import { readContext } from './context.js';
import { readFile } from './file.js';
import { readList } from './list.js';
import { readOutline } from './outline.js';
import { readReferences } from './references.js';
import { readFailureActions } from './failure-actions.js';
import { readSearch } from './search.js';

type Args = z.output<typeof readTool.input>;

/**
 * `read` (issue 4): workspace files, searches, listings and context bundles — and the code map of
 * issue 17 (outline, ranked map, references) —, session-bound and policy-checked, in the DESIGN §6.3 envelope with ready-to-call continuations.
 */
export async function readHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const ws = openWorkspace(ctx, args.remote_session_id, 'viewer');
  switch (args.view) {
    case 'search':
      return readSearch(ws, args, ctx.signal);
    case 'list':
      return readList(ws, args, ctx.signal);
    case 'context':
      if (!args.items) throw new HoldfastError('BAD_REQUEST', 'view="context" needs items: [{path, start_line?, end_line?}, …]');
      if (args.items.length > FileLimits.CONTEXT_ITEMS_MAX) throw new HoldfastError('BAD_REQUEST', `a context bundle takes at most ${FileLimits.CONTEXT_ITEMS_MAX} items`);
      return readContext(ws, args.items, args.max_total_bytes, args.purpose);
    case 'outline':
      return readOutline(ws, args);
    case 'references':
      return readReferences(ws, args);
    case 'file':
      break;
  }
  if (args.items) {
    if (args.path !== undefined) throw new HoldfastError('BAD_REQUEST', 'give path or items, not both');
    if (args.items.length > FileLimits.READ_ITEMS_MAX) throw new HoldfastError('BAD_REQUEST', `items takes at most ${FileLimits.READ_ITEMS_MAX} reads; use view="context" for larger bundles`);
    return readBatch(ws, args.items, args.max_total_bytes, args.purpose);
  }
  if (args.path === undefined) throw new HoldfastError('BAD_REQUEST', 'view="file" needs path (or items)');
  const item = {
    path: args.path,
    ...(args.mode !== undefined ? { mode: args.mode } : {}),
    ...(args.offset !== undefined ? { offset: args.offset } : {}),
    ...(args.line_byte_offset !== undefined ? { line_byte_offset: args.line_byte_offset } : {}),
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
    ...(args.start_line !== undefined ? { start_line: args.start_line } : {}),
    ...(args.end_line !== undefined ? { end_line: args.end_line } : {}),
    ...(args.force !== undefined ? { force: args.force } : {}),
  };
  const context = fileContext(ws, args.purpose);
  try {
    const r = await readFile(ws, item, { budgetBytes: ws.policy.readWindowBytes });
    const type = r.data.unchanged === true ? 'read.unchanged' : 'read.file';
    const actions = r.next ? [r.next] : r.data.unchanged === true ? [{ tool: 'read', arguments: { remote_session_id: ws.session.id, ...item, force: true }, reason: 'get the content again' }] : [];
    return { ...outcome(type, 'succeeded', r.data, r.text, { context, actions }), ...(r.image ? { extraContent: [r.image] } : {}) };
  } catch (err) {
    return failure('read.file', err, { context, actions: readFailureActions(ws, item.path, err) });
  }
}
