import { FileLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { readTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { SearchMatch } from '../../files/search/types.js';
import { action, moreLine, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, resolveForRead, type FileWorkspace } from '../file-access.js';
import { decodeCursor, encodeCursor, queryFingerprint } from './cursor.js';

type Args = z.output<typeof readTool.input>;

function render(m: SearchMatch): string {
  const lines = [...m.before.map((c) => `${m.path}-${c.line}-${c.text}`), `${m.path}:${m.line}:${m.text}`, ...m.after.map((c) => `${m.path}-${c.line}-${c.text}`)];
  return lines.join('\n');
}

/**
 * `read(view="search")` (issue 4): a literal (default) or regex query over the workspace or the
 * scope `path`, `.gitignore` respected, include/exclude globs, `context_lines`, in path order,
 * `limit` matching lines per page with a cursor for the next one.
 */
export async function readSearch(ws: FileWorkspace, args: Args, signal: AbortSignal): Promise<ToolOutcome> {
  if (args.query === undefined) throw new HoldfastError('BAD_REQUEST', 'view="search" needs query');
  const mode = args.mode ?? 'literal';
  if (mode !== 'literal' && mode !== 'regex') throw new HoldfastError('BAD_REQUEST', `view="search" takes mode="literal" or "regex", not "${mode}"`);
  const scope = resolveForRead(ws, args.path ?? '');
  if (scope.lstat === null) throw new HoldfastError('PATH_NOT_FOUND', `${scope.rel} does not exist`, { details: { path: scope.rel } });
  const limit = Math.min(args.limit ?? FileLimits.SEARCH_PAGE_DEFAULT, FileLimits.SEARCH_PAGE_MAX);
  const include = args.include ?? [];
  const exclude = args.exclude ?? [];
  const contextLines = args.context_lines ?? 0;
  const caseSensitive = args.case_sensitive ?? true;
  const fp = queryFingerprint(['search', scope.realRel, args.query, mode, include, exclude, contextLines, caseSensitive, limit]);
  const offset = decodeCursor(args.cursor, fp);
  const r = await ws.files.search.search(
    {
      root: ws.root, scope: scope.realRel, query: args.query, regex: mode === 'regex', caseSensitive, include, exclude, contextLines,
      deny: ws.policy.deny.map((d) => d.source), want: offset + limit + 1,
    },
    signal,
  );
  const page = r.matches.slice(offset, offset + limit);
  const more = offset + limit < r.matches.length;
  const rs = ws.session.id;
  const next_cursor = more ? encodeCursor(offset + limit, fp) : null;
  const data = {
    query: args.query, mode, path: scope.rel, engine: r.engine, matches: page, offset,
    total: r.complete ? r.matches.length : null, complete: r.complete, next_cursor,
  };
  const { remote_session_id: _rs, cursor: _c, ...rest } = args;
  const actions = next_cursor ? [action('read', { remote_session_id: rs, ...rest, cursor: next_cursor }, 'next page of matches')] : [];
  const head = page.length === 0
    ? `No match for ${JSON.stringify(args.query)} in ${scope.rel || 'the workspace'}.`
    : `${data.total ?? `${offset + page.length}+`} matching lines for ${JSON.stringify(args.query)}${scope.rel ? ` in ${scope.rel}` : ''}; showing ${offset + 1}-${offset + page.length}${more ? ' (more: see the last line)' : ''}:`;
  const body = page.map(render).join(contextLines > 0 ? '\n--\n' : '\n');
  return outcome('read.search', 'succeeded', data, `${body ? `${head}\n${body}` : head}${moreLine(actions[0])}`, { context: fileContext(ws, args.purpose), actions });
}
