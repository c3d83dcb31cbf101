import { gunzipSync } from 'node:zlib';
import { HoldfastError } from '@holdfast/shared/errors';
import type { EditOperation } from '@holdfast/shared/tools';
import { sha256Hex } from '../../files/file-facts.js';
import { resolveForWrite, type FileWorkspace } from '../file-access.js';
import { readBefore, wholeFileChange, writesInPlace, type EditPlan } from './plan.js';

/**
 * `operation: "undo"` (issue 4): reverts this session's last edit of `path` while the file still
 * has the sha256 that edit wrote — an update gets its previous bytes back (kept when ≤
 * FileLimits.UNDO_MAX_BYTES), a rename is moved back. A create is not undone here (that would
 * delete): move the file to the trash with move_out.
 * @throws HoldfastError UNDO_UNAVAILABLE saying why.
 */
export function planUndo(ws: FileWorkspace, op: EditOperation, index: number): EditPlan {
  const probe = resolveForWrite(ws, op.path, false);
  const row = ws.files.editFiles.lastFor(ws.session.id, probe.realRel);
  if (!row) throw new HoldfastError('UNDO_UNAVAILABLE', `this session has no edit of ${probe.rel} left to undo`, { details: { path: probe.rel } });
  const undoOf = { edit_id: row.edit_id, seq: row.seq };
  if (row.operation === 'create') {
    throw new HoldfastError('UNDO_UNAVAILABLE', `${probe.rel} was created by ${row.edit_id}; undoing a create would delete it — move it to the trash with move_out instead`, {
      details: { path: probe.rel, edit_id: row.edit_id },
    });
  }
  if (row.operation === 'rename') {
    const back = resolveForWrite(ws, row.path, false);
    if (back.lstat !== null) throw new HoldfastError('UNDO_UNAVAILABLE', `${row.path} exists again, so ${probe.rel} cannot be moved back`, { details: { path: probe.rel } });
    if (probe.lstat === null) throw new HoldfastError('UNDO_UNAVAILABLE', `${probe.rel} no longer exists`, { details: { path: probe.rel } });
    return {
      index, operation: 'undo', path: probe.rel, realRel: probe.realRel, target: probe, dest: back, before: null, after: null, afterSha: row.after_sha, mode: null, inPlace: false,
      changed: true, changedLines: 0, diff: `--- a/${probe.rel}\n+++ b/${back.rel}\nrename from ${probe.rel}\nrename to ${back.rel}\n`, undoOf,
    };
  }
  const target = resolveForWrite(ws, op.path);
  const current = readBefore(target);
  if (current.sha !== row.after_sha) {
    throw new HoldfastError('UNDO_UNAVAILABLE', `${target.rel} changed after ${row.edit_id} (now sha256 ${current.sha}); undo only restores a file nobody changed since`, {
      details: { path: target.rel, edit_id: row.edit_id, current_sha256: current.sha },
    });
  }
  if (!row.before_blob) {
    throw new HoldfastError('UNDO_UNAVAILABLE', `${row.edit_id} did not keep the previous bytes of ${target.rel} (over the undo size limit)`, { details: { path: target.rel } });
  }
  const after = gunzipSync(row.before_blob);
  const change = wholeFileChange(target.rel, target.rel, current.bytes, after);
  return {
    index, operation: 'undo', path: target.rel, realRel: target.realRel, target, before: current, after, afterSha: sha256Hex(after), mode: row.mode ?? current.mode, inPlace: writesInPlace(current, target),
    changed: true, changedLines: change.changedLines, diff: change.diff, undoOf,
  };
}
