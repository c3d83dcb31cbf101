import { renameSync, unlinkSync } from 'node:fs';
import { HoldfastError } from '@holdfast/shared/errors';
import type { MoveSubmitArgs, ResultAction } from '@holdfast/shared/tools';
import { withParentBeneath } from '../../files/beneath.js';
import { moveToTrash, type TrashedItem } from '../../files/trash.js';
import { roleAtLeast } from '../../sessions/access.js';
import type { MoveRequestRow } from '../../store/move-requests-repo.js';
import type { ToolContext } from '../context.js';
import { action, failure, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, type FileWorkspace } from '../file-access.js';
import { recheck, type ManifestEntry } from './manifest.js';

type SubmitArgs = MoveSubmitArgs;

function prepareAgain(rs: string, row: MoveRequestRow, entries: readonly ManifestEntry[]): ResultAction {
  return action('move_out', { action: 'prepare', remote_session_id: rs, purpose: row.purpose, targets: entries.map((e) => ({ path: e.path, kind: e.kind })) }, 'prepare the move again (then ask the user again)');
}

function replay(ws: FileWorkspace, row: MoveRequestRow): ToolOutcome {
  const stored = JSON.parse(row.receipt!) as ToolOutcome;
  return { ...stored, envelope: { ...stored.envelope, context: fileContext(ws, row.purpose), hints: { ...stored.envelope.hints, idempotent_replay: true } } };
}

/** Moves a trashed item back into the workspace (rollback of a partly failed submit), never through a symlink. */
function restore(root: string, t: TrashedItem): void {
  withParentBeneath(root, t.original, (dir, name) => renameSync(t.trashed_to, dir.entry(name)));
  unlinkSync(t.info_file);
}

/**
 * `move_out(action="submit")` (issue 4): only `remote_session_id` and `confirmation_uuid`. Re-checks
 * scope, manifest, shas and expiry, then moves every target to the FreeDesktop trash (all or none:
 * if one cannot move, those already moved are put back). A second submit returns the same receipt.
 */
export async function submitMove(ctx: ToolContext, ws: FileWorkspace, args: SubmitArgs): Promise<ToolOutcome> {
  const rs = ws.session.id;
  const first = ws.files.moves.byConfirmation(args.confirmation_uuid);
  if (!first || first.session_id !== rs) {
    throw new HoldfastError('CONFIRMATION_NOT_FOUND', `no move request with confirmation_uuid ${args.confirmation_uuid} in this session; prepare one with move_out(action="prepare")`);
  }
  // Confirming a move another principal prepared is an approver's call (issue 14).
  const preparedBy = first.principal ?? ws.session.principal;
  if (preparedBy !== ws.principal && !roleAtLeast(ws.role, 'approver')) {
    throw new HoldfastError('ROLE_REQUIRED', `move request ${first.id} was prepared by principal "${preparedBy}"; confirming another principal's move needs the approver role on ${rs} (you hold ${ws.role}); ask its owner to grant it`, {
      retryable: false,
      details: { role: ws.role, need: 'approver' },
    });
  }
  const entries = JSON.parse(first.manifest) as ManifestEntry[];
  return ws.files.locks.withAll(entries.map((e) => `${ws.root}/${e.realRel}`), async () => {
    const row = ws.files.moves.byConfirmation(args.confirmation_uuid)!;
    if (row.state !== 'pending' && row.receipt) return replay(ws, row);
    const context = fileContext(ws, row.purpose);
    if (Date.now() > row.expires_at) {
      const err = new HoldfastError('CONFIRMATION_EXPIRED', `move request ${row.id} expired at ${new Date(row.expires_at).toISOString()}; prepare it again and ask the user again`);
      return failure('move_out.submit', err, { context, data: { move_request_id: row.id }, actions: [prepareAgain(rs, row, entries)] });
    }
    for (const e of entries) {
      const problem = await recheck(ws, e);
      if (problem !== null) {
        const err = new HoldfastError('MANIFEST_CHANGED', `the confirmed targets changed since prepare: ${problem}; nothing was moved — prepare again and ask the user again`, { details: { path: e.path } });
        const failed = failure('move_out.submit', err, { context, data: { move_request_id: row.id }, actions: [prepareAgain(rs, row, entries)] });
        ws.files.moves.finish(row.id, 'failed', failed);
        return failed;
      }
    }
    const moved: TrashedItem[] = [];
    for (const e of entries) {
      try {
        moved.push(await moveToTrash(`${ws.root}/${e.realRel}`, process.env, { base: ws.root, expect: { dev: e.dev, ino: e.ino } }));
      } catch (err) {
        for (const t of moved.reverse()) {
          try {
            restore(ws.root, t);
          } catch {
            // left in the trash: the message names it
          }
        }
        throw new HoldfastError('TRASH_FAILED', `${(err as Error).message}; items already moved were put back`, { details: { path: e.path } });
      }
    }
    const items = moved.map((t, i) => ({ path: entries[i]!.path, kind: entries[i]!.kind, trashed_to: t.trashed_to, info_file: t.info_file, trash_dir: t.trash_dir, method: t.method }));
    for (const e of entries) ws.files.reads.forget(rs, e.realRel);
    const data = { move_request_id: row.id, manifest_sha256: row.manifest_sha256, count: items.length, moved: items, submitted_at: new Date().toISOString() };
    const text = `Moved ${items.length} item${items.length === 1 ? '' : 's'} to the trash (restorable from there):\n${items.map((i) => `  ${i.path} → ${i.trashed_to}`).join('\n')}`;
    const result = outcome('move_out.submitted', 'succeeded', data, text, { context });
    ws.files.moves.finish(row.id, 'submitted', result);
    try {
      ws.files.audit.append({ event: 'move_out.submitted', principal: ctx.call.principal, remote_session_id: rs, move_request_id: row.id, purpose: row.purpose, moved: items });
    } catch {
      // the move happened; its receipt is in the database
    }
    return result;
  });
}
