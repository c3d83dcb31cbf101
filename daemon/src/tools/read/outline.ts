import { lstatSync } from 'node:fs';
import { CodeMapLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { readTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { SUPPORTED_EXTENSIONS } from '../../files/code-map/languages.js';
import type { CodeSymbol, OutlineResult } from '../../files/code-map/types.js';
import type { ResolvedPath } from '../../files/workspace-path.js';
import { action, moreLine, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, resolveForRead, type FileWorkspace } from '../file-access.js';
import { ByteBudget, nextPage, skippedPhrase, staleCursor, symbolData, symbolLine } from './code-map-page.js';
import { decodeSnapshotCursor, encodeCursor, queryFingerprint } from './cursor.js';

type Args = z.output<typeof readTool.input>;

/** Room kept for the header, counts and actions of a code-map result, bytes. */
const ENVELOPE_RESERVE_BYTES = 2048;

const SKIP_TEXT: Record<NonNullable<OutlineResult['skipped']>, string> = {
  unsupported: `is not in a language the outline parses (${SUPPORTED_EXTENSIONS.map((e) => `.${e}`).join(' ')})`,
  too_large: `is larger than ${CodeMapLimits.MAX_FILE_BYTES / 1024 / 1024} MB (generated or data); the outline skips it`,
  binary: 'is binary',
  unreadable: 'cannot be read',
};

function isFolder(p: ResolvedPath): boolean {
  if (p.lstat?.isDirectory()) return true;
  if (!p.lstat?.isSymbolicLink()) return false;
  try {
    return lstatSync(p.real).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `read(view="outline")` (issue 17, docs/code-map.md): with a file `path`, its definitions (kind,
 * name, line range, signature line; ≤ 250), paged within the byte budget; a file the outline does
 * not parse (language, size, binary) answers with a `read` action for it. With a folder (or no
 * path), the ranked map of its source files: ≤ 20 files per page with ≤ 64 symbols each, the most
 * used files first, paged with a cursor bound to the snapshot of the files read.
 */
export async function readOutline(ws: FileWorkspace, args: Args): Promise<ToolOutcome> {
  const target = resolveForRead(ws, args.path ?? '');
  if (target.lstat === null) throw new HoldfastError('PATH_NOT_FOUND', `${target.rel} does not exist`, { details: { path: target.rel } });
  return isFolder(target) ? workspaceMap(ws, args, target) : fileOutline(ws, args, target);
}

async function fileOutline(ws: FileWorkspace, args: Args, target: ResolvedPath): Promise<ToolOutcome> {
  const context = fileContext(ws, args.purpose);
  const r = await ws.files.codeMap.outline(ws.root, target.realRel);
  if (r.skipped) {
    const read = action('read', { remote_session_id: ws.session.id, path: target.rel }, `read the file itself (${r.skipped === 'unsupported' ? 'no outline for this language' : r.skipped})`);
    const data = { path: target.rel, language: r.language, supported: false, reason: r.skipped, size: r.size, symbols: [] };
    return outcome('read.outline', 'succeeded', data, `${target.rel} ${SKIP_TEXT[r.skipped]}; read it with view="file" (see actions).`, { context, actions: [read] });
  }
  const fp = queryFingerprint(['outline', target.realRel]);
  const { offset, snapshot } = decodeSnapshotCursor(args.cursor, fp);
  if (snapshot !== null && snapshot !== r.snapshot) return staleCursor(ws, args, snapshot, r.snapshot);
  const budget = new ByteBudget(CodeMapLimits.OUTPUT_MAX_BYTES, ENVELOPE_RESERVE_BYTES);
  const shown: CodeSymbol[] = [];
  const lines: string[] = [];
  for (const s of r.symbols.slice(offset)) {
    const indent = s.container === null ? '  ' : '    ';
    const line = symbolLine(s, indent);
    if (!budget.take(line, symbolData(s))) break;
    shown.push(s);
    lines.push(line);
  }
  const end = offset + shown.length;
  const next_cursor = end < r.symbols.length ? encodeCursor(end, fp, r.snapshot) : null;
  const data = {
    path: target.rel,
    language: r.language,
    supported: true,
    total_lines: r.total_lines,
    symbols: shown.map(symbolData),
    offset,
    total_symbols: r.total_symbols,
    symbols_capped: r.total_symbols > r.symbols.length,
    snapshot: r.snapshot,
    next_cursor,
  };
  const range = offset > 0 || next_cursor ? `; showing ${offset + 1}-${end}${next_cursor ? ' (more: see the last line)' : ''}` : '';
  const capped = data.symbols_capped ? ` (the first ${CodeMapLimits.OUTLINE_SYMBOLS_MAX} are listed)` : '';
  const head = `${target.rel} [${r.language}, ${r.total_lines} lines]: ${r.total_symbols} definitions${capped}${range}`;
  const actions = next_cursor ? [nextPage(args, next_cursor)] : [];
  return outcome('read.outline', 'succeeded', data, `${lines.length > 0 ? `${head}\n${lines.join('\n')}` : head}${moreLine(actions[0])}`, { context, actions });
}

async function workspaceMap(ws: FileWorkspace, args: Args, scope: ResolvedPath): Promise<ToolOutcome> {
  const include = args.include ?? [];
  const exclude = args.exclude ?? [];
  const m = await ws.files.codeMap.map({ root: ws.root, scope: scope.realRel, include, exclude, deny: ws.policy.deny.map((d) => d.source) });
  const perPage = Math.min(args.limit ?? CodeMapLimits.MAP_FILES_PER_PAGE, CodeMapLimits.MAP_FILES_PER_PAGE);
  const fp = queryFingerprint(['map', scope.realRel, include, exclude, perPage]);
  const { offset, snapshot } = decodeSnapshotCursor(args.cursor, fp);
  if (snapshot !== null && snapshot !== m.snapshot) return staleCursor(ws, args, snapshot, m.snapshot);

  const budget = new ByteBudget(CodeMapLimits.OUTPUT_MAX_BYTES, ENVELOPE_RESERVE_BYTES);
  const candidates = m.files.slice(offset, offset + perPage);
  const files: Record<string, unknown>[] = [];
  const blocks: string[] = [];
  for (const [i, f] of candidates.entries()) {
    const header = `${f.path} [${f.language}, rank ${f.rank.toFixed(4)}]`;
    const entry = { path: f.path, language: f.language, rank: Number(f.rank.toFixed(6)), total_symbols: f.total_symbols, symbols: [] as Record<string, unknown>[] };
    if (!budget.take(header, entry)) break;
    // An even share of what is left for this file and the ones after it on the page.
    const share = budget.remaining / (candidates.length - i);
    const fileBudget = new ByteBudget(share);
    const kept: CodeSymbol[] = [];
    for (const s of f.symbols) {
      if (!fileBudget.take(symbolLine(s), symbolData(s))) break;
      kept.push(s);
    }
    kept.sort((a, b) => a.line - b.line);
    for (const s of kept) budget.take(symbolLine(s), symbolData(s));
    entry.symbols = kept.map(symbolData);
    files.push(entry);
    blocks.push([`${header}${kept.length < f.total_symbols ? ` ${kept.length} of ${f.total_symbols} definitions (outline the file for all)` : ''}`, ...kept.map((s) => symbolLine(s))].join('\n'));
  }
  const end = offset + files.length;
  const next_cursor = end < m.files.length ? encodeCursor(end, fp, m.snapshot) : null;
  const where = scope.rel || 'the workspace';
  const data = {
    path: scope.rel,
    files,
    offset,
    total_files: m.files.length,
    scanned: m.scanned,
    complete: m.complete,
    skipped: m.skipped,
    snapshot: m.snapshot,
    next_cursor,
  };
  const notScanned = m.complete ? '' : ` (walk stopped after ${CodeMapLimits.SCAN_FILES_MAX} files: narrow path or include)`;
  const head =
    m.files.length === 0
      ? `No source files (${SUPPORTED_EXTENSIONS.map((e) => `.${e}`).join(' ')}) under ${where}${skippedPhrase(m.skipped)}${notScanned}.`
      : `Map of ${where}: ${m.files.length} source files, the most used first; files ${offset + 1}-${end}${next_cursor ? ' (more: see the last line)' : ''}${skippedPhrase(m.skipped)}${notScanned}.`;
  const actions = next_cursor ? [nextPage(args, next_cursor)] : [];
  return outcome('read.map', 'succeeded', data, `${blocks.length > 0 ? `${head}\n${blocks.join('\n')}` : head}${moreLine(actions[0])}`, { context: fileContext(ws, args.purpose), actions });
}
