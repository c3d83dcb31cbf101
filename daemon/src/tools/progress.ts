import { WorkLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { progressTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ProgressRow } from '../store/progress-repo.js';
import type { ToolContext } from './context.js';
import { outcome, type ToolOutcome } from './envelope.js';
import { accessSession } from './session-access.js';

type Args = z.output<typeof progressTool.input>;

/** A progress report as tools return it (`session(open)` too). Times are epoch ms. */
export function progressView(row: ProgressRow | undefined): Record<string, unknown> | null {
  if (!row) return null;
  return { status: row.status, current: row.current, result: row.result ? (JSON.parse(row.result) as string[]) : [], at: row.at };
}

/**
 * `progress` (issue 11): records the session's state for the person watching — `status`,
 * `current` (one line), `result` (verified results, required for `completed`). The report is stored
 * before it is acknowledged. Not a heartbeat: the same status, text and results as the latest
 * report within {@link WorkLimits.PROGRESS_REPEAT_WINDOW_MS} are acknowledged (`recorded: false`)
 * without a new row or event.
 * @throws HoldfastError SESSION_NOT_FOUND, BAD_REQUEST (completed without result).
 */
export function progressHandler(args: Args, ctx: ToolContext): ToolOutcome {
  const session = accessSession(ctx.services, ctx.call.principal, args.remote_session_id, 'editor');
  const result = args.result ?? [];
  if (args.status === 'completed' && result.length === 0) {
    throw new HoldfastError('BAD_REQUEST', 'status=completed needs result: the verified results (what you checked and how), one per item');
  }
  const repo = ctx.services.work.progress;
  const now = Date.now();
  const latest = repo.latest(session.id);
  const resultJson = result.length > 0 ? JSON.stringify(result) : null;
  const context = { remote_session_id: session.id };
  if (latest && latest.status === args.status && latest.current === args.current && latest.result === resultJson && now - latest.at < WorkLimits.PROGRESS_REPEAT_WINDOW_MS) {
    const o = outcome('progress.repeated', 'succeeded', { progress: progressView(latest), recorded: false }, `Progress unchanged (${args.status}: ${args.current}); not recorded again.`, { context });
    o.event = { skip: true };
    return o;
  }
  const row = repo.insert({ session_id: session.id, status: args.status, current: args.current, result: resultJson, at: now });
  const o = outcome('progress.recorded', 'succeeded', { progress: progressView(row), recorded: true }, `Progress recorded: ${args.status}: ${args.current}${result.length > 0 ? `\n${result.map((r) => `- ${r}`).join('\n')}` : ''}`, { context });
  o.event = { data: { target: args.current, progress_status: args.status, ...(result.length > 0 ? { result } : {}) } };
  return o;
}
