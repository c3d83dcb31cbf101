import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { FileLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { readTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { openDirBeneath, type DirHandle } from '../../files/beneath.js';
import { kindOf, listingKind, notFound } from '../../files/file-kind.js';
import type { ResolvedPath } from '../../files/workspace-path.js';
import { comparePaths } from '../../files/search/path-order.js';
import { deniedBy } from '../../policy/files.js';
import { action, moreLine, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, resolveForRead, type FileWorkspace } from '../file-access.js';
import { decodeCursor, encodeCursor, queryFingerprint } from './cursor.js';

type Args = z.output<typeof readTool.input>;

/**
 * `read(view="list")` (issue 4). `mode="files"` (default): every file under `path`, recursive,
 * `.gitignore` respected, optional include/exclude globs and a path substring `query`, paged.
 * `mode="entries"`: the first level of `path` with `kind` (file | directory | symlink | other),
 * `entries_complete` and `entries_policy_filtered` (entries hidden by the file policy). `path` is a
 * hard scope: nothing outside it is listed.
 */
export async function readList(ws: FileWorkspace, args: Args, signal: AbortSignal): Promise<ToolOutcome> {
  const mode = args.mode ?? 'files';
  if (mode !== 'files' && mode !== 'entries') throw new HoldfastError('BAD_REQUEST', `view="list" takes mode="files" or "entries", not "${mode}"`);
  const scope = resolveForRead(ws, args.path ?? '');
  if (scope.lstat === null) throw notFound(Object.assign(new Error('missing'), { code: 'ENOENT' }), scope.rel || '.');
  const limit = Math.min(args.limit ?? FileLimits.LIST_PAGE_DEFAULT, FileLimits.LIST_PAGE_MAX);
  const rs = ws.session.id;
  const { remote_session_id: _rs, cursor: _c, ...rest } = args;
  const nextAction = (cursor: string | null): ReturnType<typeof action>[] => (cursor ? [action('read', { remote_session_id: rs, ...rest, cursor }, 'next page')] : []);

  if (mode === 'files') {
    const include = args.include ?? [];
    const exclude = args.exclude ?? [];
    const fp = queryFingerprint(['files', scope.realRel, include, exclude, args.query ?? null, limit]);
    const offset = decodeCursor(args.cursor, fp);
    const r = await ws.files.search.files({ root: ws.root, scope: scope.realRel, include, exclude, deny: ws.policy.deny.map((d) => d.source), query: args.query ?? null }, signal);
    const page = r.files.slice(offset, offset + limit);
    const next_cursor = offset + limit < r.files.length ? encodeCursor(offset + limit, fp) : null;
    const data = { path: scope.rel, mode, engine: r.engine, files: page, offset, total: r.complete ? r.files.length : null, complete: r.complete, next_cursor };
    const head = `${data.total ?? `${r.files.length}+`} files under ${scope.rel || 'the workspace'}${page.length < r.files.length ? `; showing ${offset + 1}-${offset + page.length}` : ''}:`;
    const actions = nextAction(next_cursor);
    return outcome('read.list', 'succeeded', data, page.length > 0 ? `${head}\n${page.join('\n')}${moreLine(actions[0])}` : `No files under ${scope.rel || 'the workspace'}.`, {
      context: fileContext(ws, args.purpose),
      actions,
    });
  }

  if (!scope.lstat.isDirectory() && !(scope.lstat.isSymbolicLink() && lstatSync(scope.real).isDirectory())) {
    throw new HoldfastError('BAD_REQUEST', `${scope.rel} is not a directory; read it with view="file"`, { details: { path: scope.rel } });
  }
  // The folder is opened without following symlinks on the way (issue 18); its entries are read
  // and examined through that descriptor, never through the path again.
  const dir = openDirBeneath(ws.root, scope.real, { shown: scope.rel || '.' });
  try {
    return listEntries(ws, args, scope, dir, limit, nextAction);
  } finally {
    dir.close();
  }
}

function listEntries(ws: FileWorkspace, args: Args, scope: ResolvedPath, dir: DirHandle, limit: number, nextAction: (cursor: string | null) => ReturnType<typeof action>[]): ToolOutcome {
  const mode = 'entries';
  const fp = queryFingerprint(['entries', scope.realRel, limit]);
  const offset = decodeCursor(args.cursor, fp);
  let names: string[];
  try {
    names = readdirSync(dir.entry('.')).sort(comparePaths);
  } catch (err) {
    throw notFound(err, scope.rel);
  }
  let filtered = 0;
  const visible: { name: string; path: string; kind: string; size?: number; link_target?: string }[] = [];
  for (const name of names) {
    const rel = scope.rel === '' ? name : `${scope.rel}/${name}`;
    const realRel = scope.realRel === '' ? name : `${scope.realRel}/${name}`;
    let st;
    try {
      st = lstatSync(dir.entry(name));
    } catch {
      continue;
    }
    const kind = kindOf(st);
    const isDir = kind === 'directory';
    if (deniedBy(ws.policy, rel, isDir) !== null || deniedBy(ws.policy, realRel, isDir) !== null) {
      filtered++;
      continue;
    }
    const e: (typeof visible)[number] = { name, path: rel, kind: listingKind(kind) };
    if (kind === 'file') e.size = st.size;
    if (kind === 'symlink') {
      try {
        e.link_target = readlinkSync(dir.entry(name));
      } catch {
        // vanished
      }
    }
    visible.push(e);
  }
  const page = visible.slice(offset, offset + limit);
  const complete = offset + limit >= visible.length;
  const next_cursor = complete ? null : encodeCursor(offset + limit, fp);
  const data = { path: scope.rel, mode, entries: page, offset, total: visible.length, entries_complete: complete && offset === 0, entries_policy_filtered: filtered, next_cursor };
  const lines = page.map((e) => `${e.kind === 'directory' ? `${e.name}/` : e.name}${e.kind === 'symlink' ? ` -> ${e.link_target ?? '?'}` : ''}${e.size !== undefined ? `  (${e.size} bytes)` : ''}`);
  const head = `${scope.rel || '.'}: ${visible.length} entries${filtered > 0 ? ` (${filtered} hidden by policy)` : ''}${complete && offset === 0 ? '' : `; showing ${offset + 1}-${offset + page.length}`}`;
  const actions = nextAction(next_cursor);
  return outcome('read.list', 'succeeded', data, `${head}\n${lines.join('\n')}${moreLine(actions[0])}`, { context: fileContext(ws, args.purpose), actions });
}
