import { FileLimits } from '@holdfast/shared/constants';
import { toWireError } from '@holdfast/shared/errors';
import type { ReadItem, ResultAction } from '@holdfast/shared/tools';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, type FileWorkspace } from '../file-access.js';
import { readFile } from './file.js';

/**
 * `read(items=[…])` (issue 4): up to FileLimits.READ_ITEMS_MAX reads in one call, in request
 * order, sharing `max_total_bytes`; each item has its own result or error. An item the budget no
 * longer covers is skipped with the read to do instead.
 */
export async function readBatch(ws: FileWorkspace, items: readonly ReadItem[], maxTotalBytes: number | undefined, purpose: string | undefined): Promise<ToolOutcome> {
  const rs = ws.session.id;
  const budget = maxTotalBytes ?? FileLimits.BATCH_DEFAULT_TOTAL_BYTES;
  let left = budget;
  const results: Record<string, unknown>[] = [];
  const texts: string[] = [];
  const images: NonNullable<ToolOutcome['extraContent']> = [];
  const actions: ResultAction[] = [];
  let failed = 0;
  for (const item of items) {
    if (left <= 0) {
      results.push({ path: item.path, status: 'skipped', reason: `max_total_bytes (${budget}) reached` });
      texts.push(`${item.path}: skipped, the batch budget is used up`);
      actions.push(action('read', { remote_session_id: rs, ...item }, `read ${item.path} (skipped: budget)`));
      continue;
    }
    try {
      const r = await readFile(ws, item, { budgetBytes: Math.min(ws.policy.readWindowBytes, left) });
      left -= r.bytes;
      results.push({ status: 'ok', ...r.data });
      texts.push(r.text);
      if (r.image) images.push(r.image);
      if (r.next) actions.push(r.next);
    } catch (err) {
      failed++;
      const w = toWireError(err);
      results.push({ path: item.path, status: 'failed', error: { code: w.code, message: w.message, retryable: w.retryable } });
      texts.push(`${item.path}: ${w.code}: ${w.message}`);
    }
  }
  const data = { items: results, total_bytes: budget - left, max_total_bytes: budget };
  return {
    ...outcome('read.batch', failed > 0 ? 'completed_with_issues' : 'succeeded', data, texts.join('\n\n'), { context: fileContext(ws, purpose), actions }),
    ...(images.length > 0 ? { extraContent: images } : {}),
  };
}
