import { CodeMapLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { readTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { CodeSymbol, SkipCounts } from '../../files/code-map/types.js';
import { action, failure, type ToolOutcome } from '../envelope.js';
import { fileContext, type FileWorkspace } from '../file-access.js';

type Args = z.output<typeof readTool.input>;

/**
 * Bytes left for one code-map result (issue 17: text block plus structured data ≤
 * CodeMapLimits.OUTPUT_MAX_BYTES). Items are added while they fit; the rest goes to the next page.
 */
export class ByteBudget {
  private left: number;

  constructor(total: number = CodeMapLimits.OUTPUT_MAX_BYTES, reserved = 0) {
    this.left = total - reserved;
  }

  /** Takes room for an item shown as `text` in the text block and `data` in structuredContent. */
  take(text: string, data: unknown): boolean {
    const cost = Buffer.byteLength(text) + 1 + Buffer.byteLength(JSON.stringify(data)) + 1;
    if (cost > this.left) return false;
    this.left -= cost;
    return true;
  }

  get remaining(): number {
    return this.left;
  }
}

/** A symbol as one text line: `12-40 class: export class Foo {`. */
export function symbolLine(s: CodeSymbol, indent = '  '): string {
  const lines = s.line === s.end_line ? `${s.line}` : `${s.line}-${s.end_line}`;
  return `${indent}${lines} ${s.kind}: ${s.signature}`;
}

/** A symbol for structured data (no `container` when it has none). */
export function symbolData(s: CodeSymbol): Record<string, unknown> {
  const { container, ...rest } = s;
  return container === null ? rest : { ...rest, container };
}

/** `; skipped: 1 over 2 MB (gen/big.ts), 2 binary` (empty when nothing was skipped). */
export function skippedPhrase(s: SkipCounts): string {
  const parts: string[] = [];
  if (s.too_large > 0) parts.push(`${s.too_large} over ${CodeMapLimits.MAX_FILE_BYTES / 1024 / 1024} MB (${s.too_large_examples.join(', ')}${s.too_large > s.too_large_examples.length ? ', …' : ''})`);
  if (s.binary > 0) parts.push(`${s.binary} binary`);
  if (s.unreadable > 0) parts.push(`${s.unreadable} unreadable`);
  return parts.length > 0 ? `; skipped: ${parts.join(', ')}` : '';
}

/**
 * The answer to a page request whose snapshot no longer matches the files (issue 17): `CURSOR_STALE`
 * with the same call without cursor as the action that starts afresh.
 */
export function staleCursor(ws: FileWorkspace, args: Args, was: string, now: string): ToolOutcome {
  const { cursor: _c, ...fresh } = args;
  const err = new HoldfastError('CURSOR_STALE', `the files changed since the first page was made (snapshot ${was}, now ${now}); pages of different snapshots do not fit together: start again without cursor`, {
    retryable: false,
    details: { snapshot: was, current: now },
  });
  return failure(`read.${args.view}`, err, { context: fileContext(ws, args.purpose), actions: [action('read', fresh, 'start again from a fresh snapshot')] });
}

/** The `read` arguments of a next page (`cursor` replaced). */
export function nextPage(args: Args, cursor: string): ReturnType<typeof action> {
  return action('read', { ...args, cursor }, 'next page');
}
