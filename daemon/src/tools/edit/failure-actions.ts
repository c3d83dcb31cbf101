import { posix } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import type { EditOperation, ResultAction } from '@holdfast/shared/tools';
import { action } from '../envelope.js';
import type { FileWorkspace } from '../file-access.js';

/** Lines of context shown around a candidate in a suggested read. */
const AROUND_LINES = 5;

/**
 * Ready-to-call continuations for a failed edit (issue 4: "say precisely what to do next"): the
 * exact read to do (whole file, or the lines around the closest match), the folder to list, the
 * move_out that replaces an undo of a create.
 */
export function editFailureActions(ws: FileWorkspace, err: unknown, op: EditOperation | undefined): ResultAction[] {
  if (!(err instanceof HoldfastError)) return [];
  const rs = ws.session.id;
  const d = err.details ?? {};
  const path = typeof d.path === 'string' ? d.path : op?.path;
  if (path === undefined) return [];
  const readWhole = action('read', { remote_session_id: rs, path }, `read ${path} (its sha256 goes into base_sha256)`);
  switch (err.code) {
    case 'SHA_MISMATCH':
      return [action('read', { remote_session_id: rs, path, force: true }, `re-read ${path}: it changed since your read`)];
    case 'READ_REQUIRED':
      return [readWhole];
    case 'MATCH_NOT_FOUND': {
      const c = (d.candidates as { line: number; text: string }[] | undefined)?.[0];
      if (!c) return [readWhole];
      const lines = c.text.split('\n').length;
      return [action('read', { remote_session_id: rs, path, start_line: Math.max(1, c.line - AROUND_LINES), end_line: c.line + lines - 1 + AROUND_LINES, force: true }, 'read the text around the closest match and copy it exactly')];
    }
    case 'MATCH_AMBIGUOUS': {
      const lines = (d.lines as number[] | undefined) ?? [];
      return lines.slice(0, 2).map((l) => action('read', { remote_session_id: rs, path, start_line: Math.max(1, l - AROUND_LINES), end_line: l + AROUND_LINES, force: true }, `see occurrence at line ${l} to make the match unique`));
    }
    case 'RECOVERY_EXHAUSTED':
      return [action('read', { remote_session_id: rs, path, force: true }, 're-read the file, then edit it with line_patch or content')];
    case 'PATH_EXISTS':
      return [action('read', { remote_session_id: rs, path }, `read the existing ${path}`)];
    case 'PATH_NOT_FOUND': {
      const dir = posix.dirname(path);
      return [action('read', { remote_session_id: rs, view: 'list', mode: 'entries', path: dir === '.' ? '' : dir }, 'list the folder to find the right name')];
    }
    case 'UNDO_UNAVAILABLE':
      return typeof d.edit_id === 'string' && /create/.test(err.message)
        ? [action('move_out', { action: 'prepare', remote_session_id: rs, purpose: `undo the creation of ${path}`, targets: [{ path, kind: 'file' }] }, 'move the created file to the trash instead')]
        : [];
    default:
      return [];
  }
}
