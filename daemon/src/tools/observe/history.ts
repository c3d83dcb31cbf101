import type { ToolContext } from '../context.js';
import { action, moreLine, outcome, type ToolOutcome } from '../envelope.js';
import type { ObserveArgs } from './index.js';
import { requireSessionAccess } from '../../sessions/access.js';

/** Events per page by default and at most. */
const HISTORY_DEFAULT_LIMIT = 50;
const HISTORY_MAX_LIMIT = 200;

/**
 * `observe(view="history")` (issue 5): the event log (session lifecycle, every tool call with its
 * status and duration, workspace events) of this session, or with `scope: "workspace"` of every
 * session of its workspace the same principal owns or holds a role on (issue 14); filtered by `tool`
 * and `status`. Newest first by default (issue 8), paged backwards with `before_seq`;
 * `order: "oldest"` lists oldest first, paged forwards with `after_seq`.
 */
export function historyView(args: ObserveArgs, ctx: ToolContext): ToolOutcome {
  const session = requireSessionAccess(ctx, args.remote_session_id, 'viewer').session;
  const limit = Math.min(args.limit ?? HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT);
  const scope = args.scope ?? 'session';
  const newest = (args.order ?? 'newest') === 'newest';
  const rows = ctx.services.events.query({
    ...(scope === 'session' ? { sessionId: session.id } : { workspace: session.workspace, principal: ctx.call.principal }),
    afterSeq: args.after_seq ?? 0,
    ...(args.before_seq !== undefined ? { beforeSeq: args.before_seq } : {}),
    order: newest ? 'desc' : 'asc',
    limit: limit + 1,
    ...(args.tool !== undefined ? { tool: args.tool } : {}),
    ...(args.status !== undefined ? { status: args.status } : {}),
  });
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const events = page.map((e) => ({
    seq: e.seq,
    at: new Date(e.at).toISOString(),
    ...(e.session_id ? { remote_session_id: e.session_id } : {}),
    kind: e.kind,
    ...(e.tool ? { tool: e.tool } : {}),
    ...(e.status ? { status: e.status } : {}),
    ...(e.data ? { data: JSON.parse(e.data) as unknown } : {}),
  }));
  const last = page.length > 0 ? page[page.length - 1]!.seq : newest ? (args.before_seq ?? 0) : (args.after_seq ?? 0);
  const order = newest ? 'newest' : 'oldest';
  const cursor = newest ? { next_before_seq: last } : { next_after_seq: last };
  const data = { scope, ...(scope === 'workspace' ? { workspace: session.workspace } : {}), order, events, ...cursor, more };
  const { after_seq: _a, before_seq: _b, ...rest } = args;
  const actions = more ? [action('observe', { ...rest, view: 'history', ...(newest ? { before_seq: last } : { after_seq: last }) }, newest ? 'older events' : 'next page')] : [];
  const lines = events.map((e) => `#${e.seq} ${e.at} ${e.kind}${e.tool ? ` ${e.tool}` : ''}${e.status ? ` ${e.status}` : ''}`);
  return outcome('observe.history', 'succeeded', data, `${events.length} events, ${order} first${more ? ' (more: see the last line)' : ''}\n${lines.join('\n')}${moreLine(actions[0])}`, { context: { remote_session_id: session.id }, actions });
}
