import { toWireError } from '@holdfast/shared/errors';
import type { ReadItem, ResultAction } from '@holdfast/shared/tools';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, type FileWorkspace } from '../file-access.js';
import { readFile } from './file.js';

/**
 * `read(view="context")` (issue 4): one bounded bundle of named files and ranges for one purpose —
 * every item rendered under a `=== path:a-b ===` header into `data.content`, within
 * `max_total_bytes` (default: the read window). Truncated items come with their continuation.
 */
export async function readContext(ws: FileWorkspace, items: readonly ReadItem[], maxTotalBytes: number | undefined, purpose: string | undefined): Promise<ToolOutcome> {
  const rs = ws.session.id;
  const budget = maxTotalBytes ?? ws.policy.readWindowBytes;
  let left = budget;
  const parts: string[] = [];
  const files: Record<string, unknown>[] = [];
  const actions: ResultAction[] = [];
  for (const item of items) {
    if (left <= 0) {
      files.push({ path: item.path, included: false, reason: 'budget used up' });
      actions.push(action('read', { remote_session_id: rs, ...item }, `read ${item.path} (left out of the bundle)`));
      continue;
    }
    try {
      const r = await readFile(ws, { ...item, force: true }, { budgetBytes: left, noImages: true });
      left -= r.bytes;
      const d = r.data;
      const range = d.start_line !== undefined && d.start_line !== null ? `:${d.start_line}-${d.end_line}` : '';
      parts.push(`=== ${r.path}${range} ===\n${typeof d.content === 'string' ? d.content : r.text}`);
      files.push({ path: r.path, included: true, sha256: d.sha256, start_line: d.start_line ?? null, end_line: d.end_line ?? null, total_lines: d.total_lines ?? null, truncated: d.truncated === true });
      if (r.next) actions.push(r.next);
    } catch (err) {
      const w = toWireError(err);
      parts.push(`=== ${item.path} ===\n[${w.code}: ${w.message}]`);
      files.push({ path: item.path, included: false, error: { code: w.code, message: w.message, retryable: w.retryable } });
    }
  }
  const content = parts.join('\n');
  const data = { purpose: purpose ?? null, content, files, total_bytes: budget - left, max_total_bytes: budget };
  const missing = files.filter((f) => f.included !== true).length;
  return outcome('read.context', missing > 0 ? 'completed_with_issues' : 'succeeded', data, content, { context: fileContext(ws, purpose), actions });
}
