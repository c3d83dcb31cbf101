import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';
import type { ToolContext } from '../context.js';
import { action, outcome, withMore, type ToolOutcome } from '../envelope.js';
import type { ObserveArgs } from './index.js';
import { requireSessionAccess } from '../../sessions/access.js';

/** Diff lines per page by default. */
const DEFAULT_LIMIT_LINES = 400;

/**
 * `observe(view="diff", edit_id, offset, limit)` (issue 4): pages through the whole stored diff of
 * one of this session's edits, `limit` lines from line `offset` (0-based), with the next page as
 * an action.
 * @throws HoldfastError BAD_REQUEST without edit_id, EDIT_NOT_FOUND for an edit of another session.
 */
export function diffView(args: ObserveArgs, ctx: ToolContext): ToolOutcome {
  const row = requireSessionAccess(ctx, args.remote_session_id, 'viewer').session;
  if (!args.edit_id) throw new HoldfastError('BAD_REQUEST', 'view="diff" needs edit_id (ed_… from an edit result)');
  const edit = isId('edit', args.edit_id) ? ctx.services.files.edits.get(args.edit_id) : undefined;
  if (!edit || edit.session_id !== row.id) throw new HoldfastError('EDIT_NOT_FOUND', `no edit ${args.edit_id} in this session`);
  const lines = edit.diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const offset = Math.min(args.offset ?? 0, lines.length);
  const limit = args.limit ?? DEFAULT_LIMIT_LINES;
  const page = lines.slice(offset, offset + limit);
  const next = offset + page.length < lines.length ? offset + page.length : null;
  const content = page.length > 0 ? `${page.join('\n')}\n` : '';
  const data = { edit_id: edit.id, offset, limit, total_lines: lines.length, content, next_offset: next, files: edit.files, purpose: edit.purpose };
  const context = { remote_session_id: row.id, ...(edit.purpose ? { purpose: edit.purpose } : {}) };
  const actions = next !== null ? [action('observe', { view: 'diff', remote_session_id: row.id, edit_id: edit.id, offset: next, limit }, 'next page of the diff')] : [];
  const head = `Diff of ${edit.id}, lines ${offset + 1}-${offset + page.length} of ${lines.length}${next !== null ? ' (more: see the last line)' : ''}:`;
  return outcome('observe.diff', 'succeeded', data, `${head}\n${withMore(content, actions[0])}`, { context, actions });
}
