import { CodeMapLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { readTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { NameHit } from '../../files/code-map/types.js';
import { moreLine, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, resolveForRead, type FileWorkspace } from '../file-access.js';
import { ByteBudget, nextPage, skippedPhrase, staleCursor } from './code-map-page.js';
import { decodeSnapshotCursor, encodeCursor, queryFingerprint } from './cursor.js';

type Args = z.output<typeof readTool.input>;

/** Room kept for the header, counts and actions, bytes. */
const ENVELOPE_RESERVE_BYTES = 2048;

/** How references are matched, said in every answer. */
const MATCHING = 'name-based: every identifier spelled exactly like the name in the parsed files, not resolved by type, scope or import';

/**
 * `read(view="references", query=NAME)` (issue 17, docs/code-map.md): the definitions of a name
 * (from the tags queries) and its uses — identifier nodes with that exact text, outside comments
 * and strings — with file, line and the line's text. Name-based, and it says so. Uses are paged
 * (≤ 200 per page, within the byte budget) with a cursor bound to the snapshot of the files read.
 * @throws HoldfastError BAD_REQUEST without query or for a query that is not one identifier.
 */
export async function readReferences(ws: FileWorkspace, args: Args): Promise<ToolOutcome> {
  if (args.query === undefined) throw new HoldfastError('BAD_REQUEST', 'view="references" needs query: the name to look up');
  const scope = resolveForRead(ws, args.path ?? '');
  if (scope.lstat === null) throw new HoldfastError('PATH_NOT_FOUND', `${scope.rel} does not exist`, { details: { path: scope.rel } });
  const include = args.include ?? [];
  const exclude = args.exclude ?? [];
  const r = await ws.files.codeMap.references({ root: ws.root, scope: scope.realRel, include, exclude, deny: ws.policy.deny.map((d) => d.source) }, args.query);
  const perPage = Math.min(args.limit ?? CodeMapLimits.REFERENCES_USES_PER_PAGE, CodeMapLimits.REFERENCES_USES_PER_PAGE);
  const fp = queryFingerprint(['references', scope.realRel, args.query, include, exclude, perPage]);
  const { offset, snapshot } = decodeSnapshotCursor(args.cursor, fp);
  if (snapshot !== null && snapshot !== r.snapshot) return staleCursor(ws, args, snapshot, r.snapshot);

  const budget = new ByteBudget(CodeMapLimits.OUTPUT_MAX_BYTES, ENVELOPE_RESERVE_BYTES);
  const defs: NameHit[] = [];
  const lines: string[] = [];
  if (offset === 0) {
    for (const d of r.definitions.slice(0, CodeMapLimits.REFERENCES_DEFINITIONS_MAX)) {
      const line = `def ${d.path}:${d.line} ${d.kind}: ${d.text}`;
      if (!budget.take(line, d)) break;
      defs.push(d);
      lines.push(line);
    }
  }
  const uses: NameHit[] = [];
  for (const u of r.uses.slice(offset, offset + perPage)) {
    const line = `${u.path}:${u.line}: ${u.text}`;
    if (!budget.take(line, u)) break;
    uses.push(u);
    lines.push(line);
  }
  const end = offset + uses.length;
  const next_cursor = end < r.uses.length ? encodeCursor(end, fp, r.snapshot) : null;
  const files = new Set([...r.definitions, ...r.uses].map((h) => h.path)).size;
  const data = {
    name: r.name,
    matching: MATCHING,
    definitions: defs,
    total_definitions: r.definitions.length,
    uses,
    offset,
    total_uses: r.uses.length,
    files,
    files_parsed: r.files_parsed,
    scanned: r.scanned,
    complete: r.complete,
    skipped: r.skipped,
    snapshot: r.snapshot,
    next_cursor,
  };
  const where = scope.rel ? ` under ${scope.rel}` : '';
  const range = r.uses.length > 0 ? `; uses ${offset + 1}-${end}${next_cursor ? ' (more: see the last line)' : ''}` : '';
  const head = `${r.name}${where}: ${r.definitions.length} definitions, ${r.uses.length} uses in ${files} files (${MATCHING})${range}${skippedPhrase(r.skipped)}${r.complete ? '' : `; walk stopped after ${CodeMapLimits.SCAN_FILES_MAX} files`}.`;
  const actions = next_cursor ? [nextPage(args, next_cursor)] : [];
  return outcome('read.references', 'succeeded', data, `${lines.length > 0 ? `${head}\n${lines.join('\n')}` : head}${moreLine(actions[0])}`, {
    context: fileContext(ws, args.purpose),
    actions,
  });
}
