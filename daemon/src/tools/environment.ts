import { EnvironmentLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { isId, newId } from '@holdfast/shared/ids';
import type { environmentReadTool, environmentTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { compareReadings } from '../environment/compare.js';
import type { EnvironmentReading } from '../environment/reading.js';
import { requireSessionAccess } from '../sessions/access.js';
import type { EnvironmentSnapshotRow } from '../store/environment-snapshots-repo.js';
import type { ToolContext } from './context.js';
import { action, outcome, type ToolOutcome } from './envelope.js';

type SaveArgs = z.output<typeof environmentTool.input>;
type ReadArgs = z.output<typeof environmentReadTool.input>;

const GIB = 1024 ** 3;

/** One line per fact group, for the text block. */
function summary(r: EnvironmentReading): string {
  const tools = Object.entries(r.toolchains)
    .filter(([, t]) => t.status !== 'missing')
    .map(([n, t]) => (t.status === 'ok' ? `${n} ${t.version}` : `${n} (${t.status.replace('_', ' ')})`));
  const disk = r.disk ? `, ${(r.disk.free_bytes / GIB).toFixed(1)} GiB free on ${r.disk.path}` : '';
  return [
    `${r.os.name}, ${r.os.type} ${r.os.kernel} ${r.os.arch}, ${r.cpu.count} CPUs, ${(r.memory.total_bytes / GIB).toFixed(1)} GiB memory (${(r.memory.free_bytes / GIB).toFixed(1)} free)${disk}`,
    `shell ${r.shell.path ?? r.shell.env ?? '?'}; locale ${Object.entries(r.locale).map(([k, v]) => `${k}=${v}`).join(' ') || '(none)'}; ${r.path.length} PATH entries; ${r.env_names.length} variables`,
    `toolchains: ${tools.join(', ') || '(none found)'}`,
  ].join('\n');
}

/**
 * A snapshot the caller may read: its id, from a session the caller may view (any of them, so a
 * new session can compare with an older one); otherwise not found — the same answer whether it
 * does not exist or is another principal's.
 * @throws HoldfastError SNAPSHOT_NOT_FOUND.
 */
function requireSnapshot(ctx: ToolContext, id: string): EnvironmentSnapshotRow {
  const notFound = (): HoldfastError => new HoldfastError('SNAPSHOT_NOT_FOUND', `no environment snapshot ${id}; environment() saves one, environment_read(view="snapshot") lists them`, { retryable: false });
  if (!isId('environmentSnapshot', id)) throw notFound();
  const row = ctx.services.environment.snapshots.get(id);
  if (!row) throw notFound();
  try {
    requireSessionAccess(ctx, row.session_id, 'viewer');
  } catch {
    throw notFound();
  }
  return row;
}

/** `environment` (issue 12): saves a fresh reading of the session's environment as a snapshot. */
export async function environmentHandler(args: SaveArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { session } = requireSessionAccess(ctx, args.remote_session_id, 'editor');
  const env = ctx.services.environment;
  const { reading } = await env.read(session, true);
  const id = newId('environmentSnapshot');
  env.snapshots.insert({ id, session_id: session.id, workspace: session.workspace, principal: ctx.call.principal, label: args.label ?? null, created_at: Date.now(), data: JSON.stringify(reading) });
  const toolchains = Object.fromEntries(Object.entries(reading.toolchains).map(([n, t]) => [n, t.status === 'ok' ? t.version : t.status]));
  return outcome(
    'environment.saved',
    'succeeded',
    { snapshot_id: id, ...(args.label ? { label: args.label } : {}), taken_at: reading.taken_at, toolchains },
    `Saved ${id}${args.label ? ` (${args.label})` : ''}.\n${summary(reading)}`,
    {
      context: { remote_session_id: session.id },
      actions: [action('environment_read', { view: 'compare', remote_session_id: session.id, snapshot_id: id }, 'later: what changed since this snapshot')],
    },
  );
}

/** `environment_read` (issue 12): the current reading, a snapshot (or the list), or a comparison. */
export async function environmentReadHandler(args: ReadArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { session } = requireSessionAccess(ctx, args.remote_session_id, 'viewer');
  const env = ctx.services.environment;
  const context = { remote_session_id: session.id };
  switch (args.view) {
    case 'current': {
      const { reading, cached } = await env.read(session, false);
      const age = Date.now() - reading.taken_at;
      return outcome('environment.current', 'succeeded', { ...reading, cached, age_ms: age }, `${cached ? `Cached reading, ${Math.round(age / 1000)} s old.\n` : ''}${summary(reading)}`, { context });
    }
    case 'snapshot': {
      if (args.snapshot_id === undefined) {
        const list = env.snapshots.list(session.id, EnvironmentLimits.LIST_MAX);
        const snapshots = list.map((s) => ({ snapshot_id: s.id, ...(s.label ? { label: s.label } : {}), created_at: s.created_at }));
        const text = snapshots.length > 0 ? snapshots.map((s) => `${s.snapshot_id} ${new Date(s.created_at).toISOString()}${s.label ? ` ${s.label}` : ''}`).join('\n') : 'No snapshots in this session; environment() saves one.';
        return outcome('environment.snapshots', 'succeeded', { snapshots }, text, { context });
      }
      const row = requireSnapshot(ctx, args.snapshot_id);
      const reading = JSON.parse(row.data) as EnvironmentReading;
      return outcome('environment.snapshot', 'succeeded', { snapshot_id: row.id, ...(row.label ? { label: row.label } : {}), created_at: row.created_at, reading }, `${row.id}${row.label ? ` (${row.label})` : ''}:\n${summary(reading)}`, { context });
    }
    case 'compare': {
      if (args.snapshot_id === undefined) throw new HoldfastError('BAD_REQUEST', 'view=compare needs snapshot_id (and optionally against: another snapshot_id; default now)', { retryable: false });
      const from = requireSnapshot(ctx, args.snapshot_id);
      const before = JSON.parse(from.data) as EnvironmentReading;
      let after: EnvironmentReading;
      let to: Record<string, unknown>;
      if (args.against !== undefined) {
        const row = requireSnapshot(ctx, args.against);
        after = JSON.parse(row.data) as EnvironmentReading;
        to = { snapshot_id: row.id, taken_at: after.taken_at };
      } else {
        after = (await env.read(session, true)).reading;
        to = { current: true, taken_at: after.taken_at };
      }
      const diff = compareReadings(before, after);
      const line = (c: { key: string; from?: string; to?: string }, sign: string): string => `${sign} ${c.key}${c.from !== undefined && c.to !== undefined ? `: ${c.from} → ${c.to}` : c.to !== undefined ? ` = ${c.to}` : c.from !== undefined ? ` (was ${c.from})` : ''}`;
      const lines = [...diff.added.map((c) => line(c, '+')), ...diff.removed.map((c) => line(c, '-')), ...diff.changed.map((c) => line(c, '~'))];
      const head = `${from.id} → ${args.against ?? 'now'}: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`;
      return outcome('environment.compare', 'succeeded', { from: { snapshot_id: from.id, taken_at: before.taken_at }, to, ...diff }, [head, ...lines].join('\n'), { context });
    }
  }
}
